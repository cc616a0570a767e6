import { expect } from 'vitest';

/** The RFC 9457 problem body the API answers with, for `toEqual` (the instance is the request id). */
export const problem = (
  code: string,
  status: number,
  title: string,
  detail: string,
  extra: Record<string, unknown> = {},
) => ({
  type: `/problems/${code}`,
  title,
  status,
  detail,
  instance: expect.any(String),
  code,
  ...extra,
});

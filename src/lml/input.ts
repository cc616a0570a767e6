/** Normalisation of LML input and the 400 problems it raises, shaped like the schema validator's. */
import { Problem } from '../problems/catalogue.js';

export const badCursor = (value: string, what: string): Problem =>
  new Problem('validation-failed', `starting_after ${value} is not a known ${what}`, {
    errors: [{ location: 'querystring', path: '/starting_after', message: `names no ${what}` }],
  });

export function fieldProblem(path: string, message: string): Problem {
  return new Problem('validation-failed', `body ${path.slice(1)} ${message}`, {
    errors: [{ location: 'body', path, message }],
  });
}

/** Trimmed, non-empty text. */
export function requiredText(value: string, field: string): string {
  const text = value.trim();
  if (text === '') throw fieldProblem(`/${field}`, 'must not be blank');
  return text;
}

/** Trimmed text, or null for absent or blank. */
export function optionalText(value: string | null | undefined): string | null {
  const text = value?.trim() ?? '';
  return text === '' ? null : text;
}

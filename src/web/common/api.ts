/**
 * fetch() wrapper for the pages' own APIs: same-origin cookie, CSRF header on state changes, JSON in and
 * out; and a refusal in the page's language: the API answers in English with a stable `code`, which the
 * Dutch pages render through the catalogue (the server's English text where the catalogue lacks the code).
 */
import { locale, t, word } from './i18n.js';

export interface FieldError {
  path?: string;
  message?: string;
}

/** An RFC 9457 problem body as the API sends it. */
export interface ProblemBody {
  code?: string;
  title?: string;
  detail?: string;
  errors?: FieldError[];
  invalidEans?: { ean: string }[];
}

/** The page's name of the field a refusal's path points at ("/filter/eans" → "EANs"); none for an unknown one. */
export function fieldName(path: string | undefined): string | undefined {
  const name = (path ?? '')
    .split('/')
    .filter((part) => part !== '' && !/^\d+$/.test(part))
    .at(-1);
  return name === undefined ? undefined : word('fields', name, '') || undefined;
}

/** The refusal in the page's language from its code, or undefined where the English text must do. */
export function localProblem(data: ProblemBody): string | undefined {
  if (locale === 'en' || data.code === undefined) return undefined;
  const sentence = word('problems', data.code, '');
  if (sentence === '') return undefined;
  const eans = (data.invalidEans ?? []).map((bad) => bad.ean);
  const fields = [...new Set((data.errors ?? []).map((error) => fieldName(error.path)))].filter(
    (name) => name !== undefined,
  );
  const named = eans.length > 0 ? eans : fields;
  return named.length > 0 ? `${sentence}: ${named.join(', ')}.` : `${sentence}.`;
}

export type Failure = { ok: false; status: number; data: ProblemBody | string | null };
export type ApiResult<T> = { ok: true; status: number; data: T } | Failure;
export type Api = <T = unknown>(method: string, path: string, body?: unknown) => Promise<ApiResult<T>>;

/** A page of a list endpoint. */
export interface Page<T> {
  data: T[];
  has_more?: boolean;
}

/** The rows of a list answer: a page ({ data: [...] }) or a bare array; none when the call failed. */
export function rowsOf<T>(result: ApiResult<Page<T> | T[]>): T[] {
  if (!result.ok) return [];
  const data = result.data;
  if (Array.isArray(data)) return data;
  return Array.isArray(data?.data) ? data.data : [];
}

/**
 * One sentence for a refused request. Field errors are added only when they say something the detail
 * does not already say (a single-field check often repeats its detail as the field's message).
 */
export function problemText(result: Failure): string {
  const data = result.data;
  if (data === null || typeof data !== 'object') return `HTTP ${result.status}`;
  const local = localProblem(data);
  if (local !== undefined) return local;
  const detail = data.detail ?? data.title ?? `HTTP ${result.status}`;
  const extra = (data.errors ?? [])
    .filter((error) => error.message !== undefined && !detail.includes(error.message))
    .map((error) => {
      const path = error.path && error.path !== '/' ? error.path.replace(/^\//, '') : '';
      const message = error.message ?? '';
      return path && !message.startsWith(path) ? `${path} ${message}` : message;
    });
  return extra.length > 0 ? `${detail}: ${extra.join('; ')}` : detail;
}

export function makeApi(base: string, csrf: () => string, onUnauthorized?: () => void): Api {
  return async <T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> => {
    const headers: Record<string, string> = {};
    if (method !== 'GET') headers['x-csrf-token'] = csrf();
    const init: RequestInit = { method, headers, credentials: 'same-origin' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response: Response;
    try {
      response = await fetch(base + path, init);
    } catch {
      return { status: 0, ok: false, data: { title: t('common.networkError'), detail: t('common.unreachable') } };
    }
    const type = response.headers.get('content-type') ?? '';
    let data: unknown = null;
    if (response.status !== 204)
      data = type.includes('json') ? await response.json().catch(() => null) : await response.text();
    if (response.status === 401) onUnauthorized?.();
    // The API's answers are trusted to have the documented shape (the server validates its responses).
    if (response.ok) return { status: response.status, ok: true, data: data as T };
    return { status: response.status, ok: false, data: data as ProblemBody | string | null };
  };
}

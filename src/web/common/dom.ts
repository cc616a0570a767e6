/**
 * Building DOM nodes: every server value reaches the page through text nodes and attributes, never as
 * HTML, so a hostile name renders as text. Children may nest arrays to any depth (a cell can be
 * `[badge, [' · ', time]]`), and they are flattened, never stringified.
 */
export type Child = Node | string | number | null | undefined | false | readonly Child[];
export type Handler = (event: Event) => unknown;
export type Props = Readonly<Record<string, string | number | boolean | null | undefined | Handler>>;

export function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) for (const inner of child as readonly Child[]) append(parent, inner);
  else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  children?: Child,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'className') node.className = String(value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

// The SVG namespace is an identifier, not a resource: nothing is fetched from it. Spelled in parts so
// the page's assets stay free of any absolute URL (a test guards that no external reference slips in).
const SVG_NS = ['http:', '', 'www.w3.org', '2000', 'svg'].join('/');

export function s(tag: string, attrs: Readonly<Record<string, string | number>> = {}, children?: Child): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  append(node, children);
  return node;
}

/** An element the HTML shell (pages/web-assets.ts pageShell) always has. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`the page has no #${id}`);
  return node as T;
}

export const main = byId('main');
export const nav = byId('nav');
const noticeBox = byId('notice');

/** How a notice reads: done (green), refused or failed (red), or under way (neutral, e.g. waiting for a result). */
export type NoticeKind = 'ok' | 'error' | 'info';

/** The status bar under the header: a short success line, an error in red, or a neutral line. */
export function notice(text = '', kind: boolean | NoticeKind = 'ok'): void {
  const resolved = kind === true ? 'error' : kind === false ? 'ok' : kind;
  noticeBox.textContent = text;
  noticeBox.className = text ? resolved : '';
}

export function setActive(name: string): void {
  for (const button of nav.querySelectorAll<HTMLElement>('[data-section]')) {
    const active = button.dataset.section === name;
    button.classList.toggle('active', active);
    if (active) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
}

/**
 * Draws one section of a page into a fresh element and swaps it into <main> once drawn (no flicker of
 * half-drawn content); `stillWanted` lets a page drop the result when the user signed out meanwhile.
 */
export async function drawSection(
  draw: ((root: HTMLElement) => Promise<void>) | undefined,
  name: string,
  keepNotice: boolean,
  stillWanted: () => boolean = () => true,
): Promise<void> {
  if (!keepNotice) notice('');
  setActive(name);
  // Named as its button reads, in the page's language.
  const label = nav.querySelector(`[data-section="${name}"]`)?.textContent?.trim() || name;
  const root = h('section', { 'aria-label': label });
  await draw?.(root);
  if (stillWanted()) main.replaceChildren(root);
}

/** Wires the section buttons of the shell's navigation to `show`. */
export function onSections(show: (name: string) => unknown): void {
  for (const button of nav.querySelectorAll<HTMLElement>('[data-section]'))
    button.addEventListener('click', () => show(button.dataset.section ?? ''));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

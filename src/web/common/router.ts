/**
 * Each section of a page has its own address: `/dashboard/deliveries`,
 * `/dashboard/deliveries/dlv_…`, `/portal/subscriptions`, with the section's filters in the query.
 * Opening a section pushes its address onto the history (History API), so reload keeps the section and
 * Back and Forward move between sections; the server answers every such path with the page itself
 * (pages/app-paths.ts). The page's own base path stands for its first section.
 */

/** Where a page is: its section, the item opened in it (a delivery, a list), the section's filters. */
export interface Place {
  section: string;
  /** The identifier of the item the section shows in detail; '' for the section itself. */
  id: string;
  query: Readonly<Record<string, string>>;
}

export interface Router {
  /** The place the address bar names (an unknown section reads as the first one). */
  current(): Place;
  /** The address of a place, for links and the history. */
  href(place: Partial<Place> & { section: string }): string;
  /** Records a place in the history: a new entry, or in place of the current one. */
  record(place: Partial<Place> & { section: string }, replace?: boolean): void;
  /** Calls `show` whenever Back or Forward lands on an entry. */
  onMove(show: (place: Place) => unknown): void;
}

/**
 * `base` is the page's path ("/dashboard"); `sections` maps each section's name to the word its
 * address uses (the console's "lml" section lives at /dashboard/lists); the first is the default.
 */
export function createRouter(base: string, sections: readonly (readonly [string, string])[]): Router {
  const first = sections[0]?.[0] ?? '';
  const slugOf = new Map(sections.map(([name, slug]) => [name, slug]));
  const nameOf = new Map(sections.map(([name, slug]) => [slug, name]));
  const href = (place: Partial<Place> & { section: string }): string => {
    const parts = [base, slugOf.get(place.section) ?? place.section];
    if (place.id) parts.push(encodeURIComponent(place.id));
    const query = new URLSearchParams(Object.entries(place.query ?? {}).filter(([, value]) => value !== ''));
    const search = query.toString();
    return parts.join('/') + (search ? `?${search}` : '');
  };
  const current = (): Place => {
    const rest = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : '';
    const [slug = '', id = ''] = rest.split('/').filter(Boolean);
    const known = nameOf.get(slug);
    const query = Object.fromEntries(new URLSearchParams(location.search));
    return { section: known ?? first, id: known === undefined ? '' : decodeURIComponent(id), query };
  };
  return {
    current,
    href,
    record: (place, replace = false) => {
      const target = href(place);
      if (target === location.pathname + location.search) return;
      if (replace) history.replaceState(null, '', target);
      else history.pushState(null, '', target);
    },
    onMove: (show) => window.addEventListener('popstate', () => void show(current())),
  };
}

/**
 * A link inside a page: a real <a href> (open in a new tab, copy the address), while a plain click
 * moves within the page without reloading it.
 */
export function linkTo(
  router: Router,
  place: Partial<Place> & { section: string },
  go: (place: Place) => unknown,
  text: string,
  className?: string,
): HTMLAnchorElement {
  const link = document.createElement('a');
  link.href = router.href(place);
  link.textContent = text;
  if (className) link.className = className;
  link.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    void go({ section: place.section, id: place.id ?? '', query: place.query ?? {} });
  });
  return link;
}

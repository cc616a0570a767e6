/**
 * ShelfmarkClient: the main API (tokens, offers) and the subscription API (LML reads, subscriptions,
 * deliveries), typed from the service's OpenAPI document. Tokens are handled entirely here: callers
 * never see one.
 */
import { chunk, MAX_EANS_PER_QUERY, normaliseEans } from './ean.js';
import { type EnvironmentOptions, type ResolvedEndpoints, resolveEndpoints } from './environments.js';
import { ApiError, ConfigurationError, InvalidEanError, NetworkError, ShelfmarkError, TimeoutError } from './errors.js';
import { eventsApi } from './events.js';
import { TokenSource } from './tokens.js';
import { type CallOptions, type Exchange, Transport, type TransportOptions } from './transport.js';
import type {
  CreateSubscription,
  Delivery,
  DeliveryQuery,
  LearningMaterialList,
  ListQuery,
  Offer,
  Page,
  PingResult,
  PricedList,
  PricedListQuery,
  ProblemDocument,
  ReplayResult,
  RotatedWebhookSecret,
  School,
  SchoolQuery,
  StructureNode,
  Subscription,
  SubscriptionQuery,
} from './types.js';

export interface ShelfmarkClientOptions extends EnvironmentOptions, TransportOptions {
  clientId: string;
  clientSecret: string;
  /** Refresh a token this many seconds before it expires; default min(60, 10 % of its lifetime). */
  tokenRefreshMarginSeconds?: number;
  /** Milliseconds since the epoch; injected for tests. */
  now?: () => number;
}

type Query = Record<string, string | number | boolean | undefined>;

function withQuery(url: string, query: Query | undefined): string {
  if (query === undefined) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === '' ? url : `${url}?${text}`;
}

const segment = (value: string | number): string => encodeURIComponent(String(value));

/** Yields every item of a cursor-paged collection, page by page, asking for the next page only when needed. */
async function* allPages<T>(
  fetchPage: (startingAfter: string | undefined) => Promise<Page<T>>,
  cursorOf: (item: T) => string,
): AsyncGenerator<T, void, undefined> {
  let startingAfter: string | undefined;
  for (;;) {
    const page = await fetchPage(startingAfter);
    yield* page.data;
    const last = page.data.at(-1);
    if (!page.has_more || last === undefined) return;
    startingAfter = cursorOf(last);
  }
}

export class ShelfmarkClient {
  readonly endpoints: ResolvedEndpoints;
  private readonly transport: Transport;
  private readonly tokens: TokenSource;

  constructor(options: ShelfmarkClientOptions) {
    if (typeof options.clientId !== 'string' || options.clientId === '')
      throw new ConfigurationError('clientId is required');
    if (typeof options.clientSecret !== 'string' || options.clientSecret === '')
      throw new ConfigurationError('clientSecret is required');
    this.endpoints = resolveEndpoints(options);
    this.transport = new Transport(options);
    this.tokens = new TokenSource({
      tokenUrl: `${this.endpoints.baseUrl}/api/auth/token`,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      transport: this.transport,
      now: options.now ?? Date.now,
      ...(options.tokenRefreshMarginSeconds === undefined
        ? {}
        : { refreshMarginSeconds: options.tokenRefreshMarginSeconds }),
    });
  }

  /** Offers by EAN (main API). */
  readonly offers = {
    /**
     * Published offers for the given EANs. Codes are trimmed and de-duplicated and validated with the
     * service's rules before anything is sent (InvalidEanError names each bad one); more than 100 are
     * split over several calls and merged in the service's order (EAN, then price, then id).
     */
    byEans: async (eans: readonly string[], options?: CallOptions): Promise<Offer[]> => {
      const { eans: unique, invalid } = normaliseEans(eans);
      if (invalid.length > 0) throw new InvalidEanError(invalid);
      if (unique.length === 0) return [];
      const pages = await Promise.all(
        chunk(unique, MAX_EANS_PER_QUERY).map((part) =>
          this.call<Offer[]>('main', 'GET', '/api/v1/offers', { query: { eans: part.join(',') }, ...options }),
        ),
      );
      return pages.flat().sort((a, b) => (a.ean < b.ean ? -1 : a.ean > b.ean ? 1 : a.price - b.price || a.id - b.id));
    },
    /** One published offer, by id or by identifier (the one offer events carry); ApiError 404 not-found otherwise. */
    get: (id: number | string, options?: CallOptions): Promise<Offer> =>
      this.call<Offer>('main', 'GET', `/api/v1/offers/${segment(id)}`, options),
  };

  /**
   * A whole book list priced in one call (GET /api/v1/lists/{identifier}/offers, operationId
   * listListOffers): the list's items in its order, each with its cheapest published offers (at most
   * `limit`, of at least `condition`), and the totals. ApiError 404 not-found for unknown or archived lists.
   */
  listOffers(listIdentifier: string, options: PricedListQuery & CallOptions = {}): Promise<PricedList> {
    const { condition, limit, ...call } = options;
    return this.call('main', 'GET', `/api/v1/lists/${segment(listIdentifier)}/offers`, {
      query: { condition, limit },
      ...call,
    });
  }

  /** The read side of the learning-material lists (subscription API). */
  readonly lml = {
    schools: {
      page: (query: SchoolQuery = {}, options?: CallOptions): Promise<Page<School>> =>
        this.call('lml', 'GET', '/api/lml/v1/schools', { query, ...options }),
      /** Every school, fetching page after page as the loop advances. */
      all: (
        query: Omit<SchoolQuery, 'starting_after'> = {},
        options?: CallOptions,
      ): AsyncGenerator<School, void, undefined> =>
        allPages(
          (after) => this.lml.schools.page({ ...query, starting_after: after }, options),
          (school) => school.identifier,
        ),
      get: (identifier: string, options?: CallOptions): Promise<School> =>
        this.call('lml', 'GET', `/api/lml/v1/schools/${segment(identifier)}`, options),
    },
    lists: {
      page: (query: ListQuery = {}, options?: CallOptions): Promise<Page<LearningMaterialList>> =>
        this.call('lml', 'GET', '/api/lml/v1/lists', { query, ...options }),
      all: (
        query: Omit<ListQuery, 'starting_after'> = {},
        options?: CallOptions,
      ): AsyncGenerator<LearningMaterialList, void, undefined> =>
        allPages(
          (after) => this.lml.lists.page({ ...query, starting_after: after }, options),
          (list) => list.identifier,
        ),
      /** A list by identifier or slug (archived lists too). */
      get: (identifierOrSlug: string, options?: CallOptions): Promise<LearningMaterialList> =>
        this.call('lml', 'GET', `/api/lml/v1/lists/${segment(identifierOrSlug)}`, options),
    },
    /** One level of the structure tree: schools at the top, then tags and lists below a node id. */
    structure: (parent?: string, options?: CallOptions): Promise<StructureNode[]> =>
      this.call('lml', 'GET', '/api/lml/v1/structure', { query: { parent }, ...options }),
  };

  /**
   * The event feed, pull instead of push (subscription API): `list()` a page, or `stream()` every
   * event in commit order, long-polling and resuming from the last cursor.
   */
  readonly events = eventsApi((query, options) =>
    this.call('lml', 'GET', '/api/lml/v1/events', { query: { ...query }, ...options }),
  );

  /** Webhook subscriptions, their deliveries and the webhook secret (subscription API). */
  readonly subscriptions = {
    /** Registers a subscription; registering the same URL and event again answers the existing one. */
    create: (input: CreateSubscription, options?: CallOptions): Promise<Subscription> =>
      this.call('lml', 'POST', '/api/lml/v1/subscriptions', { body: input, ...options }),
    page: (query: SubscriptionQuery = {}, options?: CallOptions): Promise<Page<Subscription>> =>
      this.call('lml', 'GET', '/api/lml/v1/subscriptions', { query, ...options }),
    /** Every subscription of this client, oldest first: `for await (const s of client.subscriptions.list())`. */
    list: (
      query: Omit<SubscriptionQuery, 'starting_after'> = {},
      options?: CallOptions,
    ): AsyncGenerator<Subscription, void, undefined> =>
      allPages(
        (after) => this.subscriptions.page({ ...query, starting_after: after }, options),
        (subscription) => subscription.id,
      ),
    get: (id: string, options?: CallOptions): Promise<Subscription> =>
      this.call('lml', 'GET', `/api/lml/v1/subscriptions/${segment(id)}`, options),
    delete: async (id: string, options?: CallOptions): Promise<void> => {
      await this.call<null>('lml', 'DELETE', `/api/lml/v1/subscriptions/${segment(id)}`, options);
    },
    /**
     * Queues deliveries of the past events a subscription matches, from an ISO time or a feed cursor
     * (at most 10,000: ApiError 422 replay-too-large beyond). Creating with `replayFrom` does the same.
     */
    replay: (id: string, from: string, options?: CallOptions): Promise<ReplayResult> =>
      this.call('lml', 'POST', `/api/lml/v1/subscriptions/${segment(id)}/replay`, { body: { from }, ...options }),
    /** Re-enables a subscription that was disabled after failing. */
    enable: (id: string, options?: CallOptions): Promise<Subscription> =>
      this.call('lml', 'POST', `/api/lml/v1/subscriptions/${segment(id)}/enable`, options),
    /**
     * Sends a test webhook ({"type":"ping","resource":"subscription",...}) once and answers its outcome:
     * `ok` only when the receiver answered 2xx, else `statusCode`/`errorClass`/`error` say why. Never retried.
     */
    ping: (id: string, options?: CallOptions): Promise<PingResult> =>
      this.call('lml', 'POST', `/api/lml/v1/subscriptions/${segment(id)}/ping`, options),
    deliveriesPage: (id: string, query: DeliveryQuery = {}, options?: CallOptions): Promise<Page<Delivery>> =>
      this.call('lml', 'GET', `/api/lml/v1/subscriptions/${segment(id)}/deliveries`, { query, ...options }),
    /** Every delivery of a subscription, newest first. */
    deliveries: (
      id: string,
      query: Omit<DeliveryQuery, 'starting_after'> = {},
      options?: CallOptions,
    ): AsyncGenerator<Delivery, void, undefined> =>
      allPages(
        (after) => this.subscriptions.deliveriesPage(id, { ...query, starting_after: after }, options),
        (delivery) => delivery.id,
      ),
    /** Issues a new webhook secret (shown once); the previous one keeps signing webhook-signature until previousSecretValidUntil. */
    rotateWebhookSecret: (options?: CallOptions): Promise<RotatedWebhookSecret> =>
      this.call('lml', 'POST', '/api/lml/v1/webhook-secret', options),
  };

  /**
   * One authenticated call. A 403 token-expired (or a 401 invalid-token) makes the client drop the
   * token, fetch a new one and send the call once more; a second refusal is raised.
   */
  private async call<T>(
    api: 'main' | 'lml',
    method: Exchange['method'],
    path: string,
    options: CallOptions & { query?: Query; body?: unknown } = {},
  ): Promise<T> {
    const base = api === 'main' ? this.endpoints.baseUrl : this.endpoints.lmlBaseUrl;
    const url = withQuery(`${base}${path}`, options.query);
    const callOptions: CallOptions = {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
    for (let refreshed = false; ; refreshed = true) {
      const token = await this.tokens.token(callOptions);
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await this.transport.send(
        {
          method,
          url,
          headers,
          idempotent: method === 'GET',
          ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        },
        callOptions,
      );
      if (response.ok) return (response.status === 204 ? null : await readJson(response, method, url)) as T;
      const error = await toApiError(response);
      if (!refreshed && (error.code === 'token-expired' || error.code === 'invalid-token')) {
        this.tokens.invalidate(token);
        continue;
      }
      throw error;
    }
  }
}

async function readJson(response: Response, method: string, url: string): Promise<unknown> {
  try {
    return await response.json();
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError')
      throw new TimeoutError(`${method} ${url} timed out while reading the answer`, { cause: error });
    if (error instanceof Error && error.name === 'AbortError') throw error;
    if (error instanceof SyntaxError)
      throw new ShelfmarkError(`${method} ${url} answered ${response.status} with a body that is not JSON`, {
        cause: error,
      });
    throw new NetworkError(`${method} ${url}: reading the answer failed`, { cause: error });
  }
}

async function toApiError(response: Response): Promise<ApiError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const text = await response.text().catch(() => '');
  let problem: ProblemDocument = { status: response.status };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) problem = parsed as ProblemDocument;
  } catch {
    // Not JSON (a proxy's error page): keep the status and a short excerpt as the detail.
    if (text !== '') problem = { status: response.status, detail: text.slice(0, 200) };
  }
  return new ApiError(response.status, problem, requestId);
}

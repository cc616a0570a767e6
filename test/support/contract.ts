/**
 * The API document held to every answer the suite sees. Each harness app records what its documented
 * routes answer (status, content type, body) and checks it against its own `/openapi.json`: a status
 * the operation does not document, a content type it does not list, or a JSON body outside the
 * documented schema is a contract violation, and the harness refuses to close with one. Routes the
 * document hides (the console's and the portal's own API) are not part of the contract.
 */
import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

type Schema = Record<string, unknown>;
interface ResponseSpec {
  content?: Record<string, { schema?: Schema }>;
}
interface Doc {
  paths: Record<string, Record<string, { responses?: Record<string, ResponseSpec> }>>;
  components?: Schema;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** One checker per distinct document: the suite's many harnesses mostly serve the same one. */
class Contract {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Doc) {
    this.ajv.addSchema({ $id: 'openapi', components: doc.components ?? {} });
  }

  /** What is wrong with this answer, or null when the document allows it (or does not cover the route). */
  check(method: string, route: string, status: number, type: string, body: string | null): string | null {
    const operation = this.doc.paths[openApiPath(route)]?.[method.toLowerCase()];
    if (operation?.responses === undefined) return null;
    const where = `${method} ${openApiPath(route)} → ${status}`;
    const code = String(status);
    const spec = operation.responses[code] ?? operation.responses[`${code[0]}XX`] ?? operation.responses.default;
    if (spec === undefined)
      return `${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`;
    if (status === 204 || status === 304 || body === null) return null;
    if (spec.content === undefined) return body === '' ? null : `${where}: a body where none is documented`;
    const content = spec.content[type];
    if (content === undefined)
      return `${where}: ${type || 'no content type'} not documented (${Object.keys(spec.content).join(', ')})`;
    if (!type.endsWith('json') || content.schema === undefined) return null;
    const validate = this.validator(`${where} ${type}`, content.schema);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `${where}: the body is not JSON`;
    }
    return validate(parsed) ? null : `${where}: ${this.ajv.errorsText(validate.errors)} in ${body.slice(0, 200)}`;
  }

  private validator(key: string, schema: Schema): ValidateFunction {
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/');
      validate = this.ajv.compile(JSON.parse(text) as Schema);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

const contracts = new Map<string, Contract>();

function contractOf(app: FastifyInstance): Contract {
  const doc = (app as FastifyInstance & { swagger(): unknown }).swagger() as Doc;
  const text = JSON.stringify(doc);
  const key = createHash('sha256').update(text).digest('hex');
  let contract = contracts.get(key);
  if (contract === undefined) {
    contract = new Contract(JSON.parse(text) as Doc);
    contracts.set(key, contract);
  }
  return contract;
}

/**
 * Watches every answer of `app` (add before `ready`). Returns the list the violations are added to.
 * A streamed or compressed body is checked for its status and content type only.
 */
export function watchContract(app: FastifyInstance): string[] {
  const violations: string[] = [];
  let contract: Contract | undefined;
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    if (route === undefined) return payload;
    contract ??= contractOf(app);
    const type =
      String(reply.getHeader('content-type') ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    const readable = typeof payload === 'string' || Buffer.isBuffer(payload) || payload == null;
    const body =
      !readable || reply.getHeader('content-encoding') !== undefined ? null : payload == null ? '' : payload.toString();
    const wrong = contract.check(request.method, route, reply.statusCode, type, body);
    if (wrong !== null) violations.push(wrong);
    return payload;
  });
  return violations;
}

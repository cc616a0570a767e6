/**
 * Every operation of the document has an example, request and answer, and each validates against the
 * schema it illustrates (JSON Schema 2020-12 as OpenAPI 3.1 says; prices compared as decimals).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createHarness, type Harness } from '../support/harness.js';

type Schema = Record<string, unknown>;
interface Media {
  schema?: Schema;
  example?: unknown;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: Schema;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
// JSON bodies and forms; an NDJSON stream is lines of JSON, not one document.
const JSON_MEDIA = /^application\/(?:[a-z.+-]*\+)?json$|^application\/x-www-form-urlencoded$/;

describeEachEngine('examples in the OpenAPI document', (engine) => {
  let h: Harness;
  let doc: Doc;
  let ajv: Ajv2020;
  beforeAll(async () => {
    h = await createHarness(engine);
    doc = (await h.anonymous().get('/openapi.json')).json<Doc>();
    // A price is a multiple of 0.01 in decimal; binary division would refuse 19.99.
    ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true, multipleOfPrecision: 9 }));
    ajv.addSchema({ $id: 'openapi', components: doc.components });
  });
  afterAll(async () => h.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ at: `${method.toUpperCase()} ${path}`, operation })),
    );
  const problemsOf = (schema: Schema | undefined, value: unknown): string | undefined => {
    if (schema === undefined) return 'no schema';
    const rewritten = JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'),
    ) as Schema;
    const validate = ajv.compile(rewritten);
    return validate(value) ? undefined : ajv.errorsText(validate.errors);
  };

  it('every operation has an example of its request body, its required parameters and each JSON success', () => {
    const failures: string[] = [];
    for (const { at, operation } of operations()) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.required !== true) continue;
        const values =
          parameter.example !== undefined
            ? [parameter.example]
            : Object.values(parameter.examples ?? {}).map((example) => example.value);
        if (values.length === 0) failures.push(`${at}: parameter ${parameter.name} has no example`);
        for (const value of values) {
          const wrong = problemsOf(parameter.schema, value);
          if (wrong !== undefined)
            failures.push(`${at}: parameter ${parameter.name} example ${String(value)}: ${wrong}`);
        }
      }
      const bodies = Object.entries(operation.requestBody?.content ?? {});
      for (const [type, media] of bodies) {
        if (!JSON_MEDIA.test(type)) continue;
        if (media.example === undefined) failures.push(`${at}: request ${type} has no example`);
        else {
          const wrong = problemsOf(media.schema, media.example);
          if (wrong !== undefined) failures.push(`${at}: request ${type} example: ${wrong}`);
        }
      }
      const successes = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      if (successes.length === 0) failures.push(`${at}: no success documented`);
      for (const [status, response] of successes)
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (!JSON_MEDIA.test(type)) continue;
          if (media.example === undefined) failures.push(`${at}: ${status} ${type} has no example`);
          else {
            const wrong = problemsOf(media.schema, media.example);
            if (wrong !== undefined) failures.push(`${at}: ${status} ${type} example: ${wrong}`);
          }
        }
    }
    expect(failures).toEqual([]);
  });
});

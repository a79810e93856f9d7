// The handler every endpoint gets unless its spec names a custom one: send the
// request, parse the answer leniently with the resource's schema, and hand the
// output layer records and columns.
import type { CommandSpec } from '../resources/types.js';
import type { LoadedModule } from '../resources/registry.js';
import type { Column, CommandInput, Context, Page, Result } from './types.js';
import { EmptyResultError } from '../errors.js';
import { fillTemplate } from './request.js';
import { lenient } from './lenient.js';

export async function runEndpoint(input: CommandInput, ctx: Context, mod: LoadedModule): Promise<Result> {
  const { spec, request, values } = input;
  if (!request) throw new Error(`command ${spec.path.join(' ')} has no endpoint and no handler`);
  const client = await ctx.client();
  const parse = lenient(mod, spec.output.schema, ctx);
  const columns = columnsOf(mod, spec);
  const idField = spec.output.idField ?? 'id';
  switch (spec.output.kind) {
    case 'list': {
      const all = values.all === true;
      const pages = client.pages(request, { all, signal: ctx.signal });
      return { kind: 'list', pages: mapPages(pages, parse, spec, values, ctx), columns, idField };
    }
    case 'record': {
      const spinner = ctx.spinner('Loading…');
      const res = await client.request(request, { signal: ctx.signal }).finally(() => spinner.stop());
      const body = res.body as { data?: unknown } | undefined;
      const record = parse(body && typeof body === 'object' && 'data' in body ? body.data : body);
      return { kind: 'record', record, columns, idField };
    }
    case 'object': {
      const res = await client.request(request, { signal: ctx.signal });
      return { kind: 'object', value: res.body ?? {}, idField: spec.output.idField };
    }
    case 'none': {
      await client.request(request, { signal: ctx.signal });
      const id = firstPathValue(spec, values);
      return { kind: 'done', message: fillTemplate(spec.output.done ?? 'Done.', values), id };
    }
  }
}

async function* mapPages(
  pages: AsyncIterable<Page>,
  parse: (r: unknown) => unknown,
  spec: CommandSpec,
  values: Record<string, unknown>,
  ctx: Context,
): AsyncIterable<unknown[]> {
  let count = 0;
  const spinner = ctx.spinner('Loading…');
  try {
    for await (const page of pages) {
      spinner.stop();
      count += page.records.length;
      // Records pass through as the service sent them (a loose schema would
      // only copy them); the first of each page is checked so that --debug
      // still reports an answer that drifted from its schema. On a walk over
      // 10,000 records this saves a copy of every record and its garbage.
      if (page.records.length) parse(page.records[0]);
      yield page.records;
    }
  } finally {
    spinner.stop();
  }
  if (count === 0 && values.fail_if_empty) throw new EmptyResultError(`no ${spec.path[0]} matched`);
}

export function columnsOf(mod: LoadedModule, spec: CommandSpec): Column[] {
  const key = spec.output.columns;
  return (key && mod.columns?.[key]) || [];
}

function firstPathValue(spec: CommandSpec, values: Record<string, unknown>): string | number | undefined {
  const m = spec.endpoint?.match(/\{(\w+)\}/g);
  if (!m) return undefined;
  const last = m[m.length - 1]!.slice(1, -1);
  const v = values[last];
  return typeof v === 'string' || typeof v === 'number' ? v : undefined;
}

// Answers are parsed leniently: the schema shapes known fields, unknown fields
// are kept (loose objects) and a record the schema rejects is passed through
// as the service sent it, so a new or odd field never breaks a command.
import type { LoadedModule } from '../contract/context.js';
import type { Context } from '../contract/context.js';

interface SafeParser {
  safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

export function lenient(mod: LoadedModule, schemaName: string | undefined, ctx: Context): (r: unknown) => unknown {
  const schema = schemaName ? (mod.schemas?.[schemaName] as SafeParser | undefined) : undefined;
  if (!schema) return (r) => r;
  let warned = false;
  return (record: unknown) => {
    const r = schema.safeParse(record);
    if (r.success) return r.data;
    if (ctx.globals.debug && !warned) {
      warned = true;
      const issue = r.error.issues[0];
      ctx.warn(`an answer did not match the ${schemaName} schema (${issue?.path.join('.') || 'record'}: ${issue?.message}); shown as received`);
    }
    return record;
  };
}

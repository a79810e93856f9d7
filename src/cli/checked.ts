// A handler in two steps (src/contract/context.ts, Handler.check): its input checks run before
// any name given for an id is looked up, so input refused (exit 2, or 3 for a bad setting) sends
// nothing; what the checks found is handed to the run. Called without it (a test calls a handler
// directly), the handler checks first itself.
import type { CommandInput, Context, Handler, Result } from '../contract/context.js';

export function checkedHandler<S>(check: (input: CommandInput, ctx: Context) => Promise<S>, run: (input: CommandInput, ctx: Context, checked: S) => Promise<Result>): Handler {
  const handler: Handler = async (input, ctx, checked) => run(input, ctx, checked === undefined ? await check(input, ctx) : (checked as S));
  handler.check = check;
  return handler;
}

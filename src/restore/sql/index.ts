// The SQL restore engines of `backupctl restore-test` (issue 24 §2-3, issue 28).
export { createSqlRestoreSink, planSqlEngine, NoRestoreEngineError, dialectOf, SQL_KINDS, SQL_ENGINES } from './sink.js';
export type { SqlEngine, EnginePlan, EngineOptions } from './engine.js';
export { SqlReader, countInsertRows, type SqlEvent } from '../../pipeline/sql-reader.js';
export { parseIntoUrl, describeRaw, IntoUrlError, type ParsedUrl } from '../servers/url.js';
export { activeEphemeralServers } from '../servers/ephemeral.js';
export { RestoreError } from './target.js';
export { PGLITE_PACKAGE } from './pglite.js';

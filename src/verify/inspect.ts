// The content checks moved to the read pipeline (src/pipeline/inspect.ts); this name stays importable.
export * from '../pipeline/inspect.js';

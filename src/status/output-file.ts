// Moved to src/output/output-file.ts (issue 25 §17: the --output-file writer is not status's).
// Kept so the modules that still import it from here go on working; import from output/ instead.
export * from '../output/output-file.js';

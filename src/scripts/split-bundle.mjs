// The bundle in two: dist/main.cjs holds what start-up and the common commands
// run (the CLI's entry, commander, the command runner, the HTTP client and the
// API resources), dist/cold.cjs everything else (restore-test, verify, the
// emulator, reports, the catalog, YAML, BSON, jq...), loaded the first time a
// command imports one of its modules.
//
// Why: every start paid for the whole bundle, whatever the command: reading and
// decoding the file, V8's code cache for it and the top level that defines each
// module. With the restore engines and the browse commands the bundle had grown
// to 1.8 MB, of which `--help` and `servers list` run a third (docs/startup.md).
//
// How: a first build of the whole CLI (as before) gives esbuild's module graph.
// The start-up part is what the roots below reach by static imports; the rest is
// cold. Each module is in one bundle only, so there is one instance of it (an
// error class, zod, undici): an import from one bundle of a module of the other
// becomes a small CommonJS module that asks the other bundle for it, by the
// module's path:
// - main.cjs exports `coreModules` (path -> require of that module, for each
//   start-up module a cold module imports), and asks `module.loadCold()`
//   (src/boot.cjs) for the cold bundle's table when a cold module is imported;
// - cold.cjs exports the table of the cold modules main.cjs imports, and reads
//   `module.core` (main.cjs's `coreModules`, set by boot.cjs) for the others.
// Start-up modules import cold ones only by `await import()` (a static import
// would make the module a start-up one), so the cold bundle loads only when a
// command needs it.
import path from 'node:path';

/**
 * The modules whose static imports make the start-up part: the entry, and what
 * the common commands import lazily on their way (program, runner, the API
 * resources, the HTTP client and its undici agent, output and settings).
 */
export const START_UP_ROOTS = [
  'src/main.ts',
  'src/cli/program.ts',
  'src/commands/runner.ts',
  'src/cli/context.ts',
  'src/cli/dialect.ts',
  'src/config/index.ts',
  'src/http/client.ts',
  'src/http/scan.ts',
  'src/http/undici.ts',
  'src/output/index.ts',
];

/** The roots above and every API resource module (src/resources/*.ts, the commands most runs are). */
export function startUpRoots(metafile) {
  const resources = Object.keys(metafile.inputs).filter((f) => /^src\/resources\/[^/]+\.ts$/.test(f));
  for (const root of START_UP_ROOTS) if (!metafile.inputs[root]) throw new Error(`split-bundle: the start-up root ${root} is not in the bundle (renamed? update START_UP_ROOTS)`);
  return [...START_UP_ROOTS, ...resources];
}

/**
 * From the whole bundle's metafile: the start-up modules (`hot`), the cold ones,
 * the cold modules start-up modules import (`coldEntries`) and the start-up
 * modules cold ones import (`coreEntries`). Paths as the metafile has them
 * (relative to the sources' root).
 */
export function splitGraph(metafile) {
  const hot = new Set();
  const stack = startUpRoots(metafile);
  while (stack.length) {
    const file = stack.pop();
    if (hot.has(file) || !metafile.inputs[file]) continue;
    hot.add(file);
    for (const i of metafile.inputs[file].imports) if (i.kind !== 'dynamic-import' && !i.external) stack.push(i.path);
  }
  const isFile = (f) => !/^[a-z-]+:/.test(f); // not a plugin's namespace (lazy-builtin:node:http2)
  const cold = new Set(Object.keys(metafile.inputs).filter((f) => !hot.has(f) && isFile(f)));
  const coldEntries = new Set();
  const coreEntries = new Set();
  for (const [file, input] of Object.entries(metafile.inputs)) {
    for (const i of input.imports) {
      if (i.external) continue;
      if (hot.has(file) && cold.has(i.path)) coldEntries.add(i.path);
      if (cold.has(file) && hot.has(i.path) && isFile(i.path)) coreEntries.add(i.path);
    }
  }
  return { hot, cold, coldEntries: [...coldEntries].sort(), coreEntries: [...coreEntries].sort() };
}

/**
 * An esbuild plugin that sends imports of the `other` bundle's modules to it,
 * `<ask>(<path>)`. `side` names this bundle in errors; `formats`: each module's
 * format (cjs or esm), from the whole build's metafile.
 */
export function otherBundle({ root, other, ask, allowed, side, table, formats }) {
  return {
    name: `split-bundle-${side}`,
    setup(build) {
      // main.cjs's table for cold.cjs (coreTable), required on cold.cjs's first use of it.
      build.onResolve({ filter: /^split-bundle:core-table$/ }, () => ({ path: 'core-table', namespace: 'split-bundle-table' }));
      build.onLoad({ filter: /.*/, namespace: 'split-bundle-table' }, () => ({ contents: table, loader: 'js', resolveDir: root }));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === 'split-bundle' || args.kind === 'entry-point' || args.path.startsWith('node:')) return undefined;
        const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, namespace: args.namespace, pluginData: 'split-bundle' });
        if (r.errors.length || r.external || r.namespace !== 'file') return undefined;
        const rel = path.relative(root, r.path).split(path.sep).join('/');
        if (!other.has(rel)) return undefined;
        if (!allowed.has(rel)) throw new Error(`split-bundle (${side}): ${path.relative(root, args.importer)} imports ${rel} of the other bundle, which the first build did not see`);
        return { path: rel, namespace: 'split-bundle' };
      });
      // A CommonJS module (or JSON) of the other bundle is its module.exports. An ES module is an ES module re-exporting
      // the other bundle's object: a CommonJS stand-in imported from an ES module of a "type": "module" package
      // would get the whole object as its default export (node's rule, which esbuild follows).
      build.onResolve({ filter: /^split-bundle-object:/ }, (args) => ({ path: args.path.slice('split-bundle-object:'.length), namespace: 'split-bundle-object' }));
      build.onLoad({ filter: /.*/, namespace: 'split-bundle-object' }, (args) => ({ contents: `module.exports = ${ask}(${JSON.stringify(args.path)});\n`, loader: 'js' }));
      build.onLoad({ filter: /.*/, namespace: 'split-bundle' }, (args) => {
        const object = JSON.stringify(`split-bundle-object:${args.path}`);
        return { contents: formats[args.path] === 'esm' ? `export * from ${object};\nexport default require(${object}).default;\n` : `module.exports = require(${object});\n`, loader: 'js', resolveDir: root };
      });
    },
  };
}

/** The source of a table `path -> () => require(path)` for the given modules (absolute requires, bundled). */
export function moduleTable(root, files) {
  return `{\n${files.map((f) => `  ${JSON.stringify(f)}: () => require(${JSON.stringify(path.join(root, f))}),`).join('\n')}\n}`;
}

/**
 * The module main.cjs exports its table from (`coreModules`, read by cold.cjs). A
 * module of the sources is handed over whole (a require keeps all its exports).
 * A package's ES module is handed over as the names the cold modules use (see
 * usedNames): zod/mini required whole keeps all of zod, 400 kB more on every start.
 */
export function coreTable(root, metafile, files, usedNames) {
  const imports = [];
  const entries = files.map((f, i) => {
    const names = usedNames.get(f);
    if (!names) return `  ${JSON.stringify(f)}: () => require(${JSON.stringify(path.join(root, f))}),`;
    imports.push(`import * as m${i} from ${JSON.stringify(path.join(root, f))};`);
    const getters = [...names].sort().map((n) => `get ${JSON.stringify(n)}() { return m${i}[${JSON.stringify(n)}]; }`);
    return `  ${JSON.stringify(f)}: () => ({ __esModule: true, ${getters.join(', ')} }),`;
  });
  return `${imports.join('\n')}\nexport default {\n${entries.join('\n')}\n};\n`;
}

/**
 * For each package ES module among `files` (zod/mini), the names the cold modules
 * import from it: named imports, and the properties read of an `import * as z`.
 * Read from the sources with TypeScript's parser. A module some cold module uses
 * otherwise (the namespace passed as a value, import() of it, a JavaScript
 * importer) is left out, and so handed over whole.
 */
export async function usedNames(root, metafile, cold, files) {
  // A package's module, also where node_modules is a link (a copy of the sources, as the install test packs): its real path then.
  const wanted = new Set(files.filter((f) => /(^|\/)node_modules\//.test(f) && metafile.inputs[f]?.format === 'esm'));
  const result = new Map([...wanted].map((f) => [f, new Set()]));
  if (!wanted.size) return result;
  const { default: ts } = await import('typescript');
  const { readFile } = await import('node:fs/promises');
  const whole = (f) => result.delete(f);
  for (const file of cold) {
    const uses = metafile.inputs[file].imports.filter((i) => wanted.has(i.path));
    if (!uses.length) continue;
    if (!/\.tsx?$/.test(file)) {
      for (const u of uses) whole(u.path);
      continue;
    }
    const bySpecifier = new Map(uses.map((u) => [u.original, u.path]));
    const source = ts.createSourceFile(file, await readFile(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const namespaces = new Map(); // local name -> module
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const target = bySpecifier.get(statement.moduleSpecifier.text);
      const clause = statement.importClause;
      if (!target || !result.has(target) || !clause || clause.isTypeOnly) continue;
      if (clause.name) result.get(target)?.add('default');
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, target);
      else if (bindings) for (const el of bindings.elements) if (!el.isTypeOnly) result.get(target)?.add((el.propertyName ?? el.name).text);
    }
    const visit = (node) => {
      if (ts.isImportDeclaration(node)) return;
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const arg = node.arguments[0];
        if (arg && ts.isStringLiteral(arg) && bySpecifier.has(arg.text)) whole(bySpecifier.get(arg.text));
      }
      if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && bySpecifier.has(node.moduleSpecifier.text)) whole(bySpecifier.get(node.moduleSpecifier.text));
      if (ts.isIdentifier(node) && namespaces.has(node.text)) {
        const target = namespaces.get(node.text);
        const parent = node.parent;
        // z.object(...) in code, z.infer<...> in a type (erased): a name read; anything else hands the module over whole.
        if (ts.isPropertyAccessExpression(parent) && parent.expression === node) result.get(target)?.add(parent.name.text);
        else if (!ts.isQualifiedName(parent) && !(parent && 'name' in parent && parent.name === node && !ts.isShorthandPropertyAssignment(parent))) whole(target);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return result;
}

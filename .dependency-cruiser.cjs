// The import rules of docs/architecture.md, checked by `npm run lint`.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles (type-only imports included) in src/, bench/ and test/support/.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'layers-know-no-feature',
      severity: 'error',
      comment: 'Plugins, auth, the resource layer, db/ and http/ never import a feature module: app.ts wires them.',
      from: { path: '^src/(plugins|auth|resource|db|http)/', pathNot: '^src/db/schema[.]ts$' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'schema-composes-the-record-tables',
      severity: 'error',
      comment: 'db/schema.ts takes the record tables from the collections list, and nothing else from a module.',
      from: { path: '^src/db/schema[.]ts$' },
      to: { path: '^src/modules/', pathNot: '^src/modules/records/index[.]ts$' },
    },
    {
      name: 'features-import-no-plugin-job-cli-or-simulation',
      severity: 'error',
      comment: 'What a feature shares with a plugin, a job or the CLI lives below them (auth/, http/, db/).',
      from: { path: '^src/modules/' },
      to: { path: '^src/(plugins|jobs|cli|simulation)/|^src/cli[.]ts$' },
    },
    {
      name: 'the-cli-is-on-top',
      severity: 'error',
      comment: 'Only the CLI itself imports src/cli/.',
      from: { path: '^src/', pathNot: '^src/cli/|^src/cli[.]ts$' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules|^clients/typescript/src/schema[.]d[.]ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}

// The two prompts backupctl asks: a yes/no confirmation and a hidden token.
// From the @inquirer/prompts family's own packages: @inquirer/prompts
// re-exports them, but bundling it keeps every prompt's module, the editor's
// encoding tables included (about 600 KB of the bundle).
export { default as confirm } from '@inquirer/confirm';
export { default as password } from '@inquirer/password';

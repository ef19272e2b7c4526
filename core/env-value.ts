/**
 * The environment variable `name`, read as the environment's own key only. The name may come from a
 * manifest or a config file (`${toString}` in `.mcp.json`, `"apiKeyEnv": "constructor"`): a plain
 * lookup found Object.prototype's functions there (even `process.env.toString` is one), which then
 * failed keel where a string was expected.
 */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return Object.hasOwn(env, name) ? env[name] : undefined;
}

import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

/**
 * Leaves unmutated the first argument of `luaScript(spec, source)`: the names of a Redis
 * script's keys and arguments and what it answers. They are its documentation, read only for
 * the message of a wrong argument count the types rule out, so every mutant of them survives
 * without saying anything about the tests. The script's source is still mutated.
 */
export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'lua-script-names', {
    shouldIgnore(path) {
      const call = path.parentPath;
      if (path.key !== 0 || !call?.isCallExpression()) return undefined;
      const callee = call.node.callee;
      if (callee.type !== 'Identifier' || callee.name !== 'luaScript') return undefined;
      return "A Lua script's key and argument names are its documentation";
    },
  }),
];

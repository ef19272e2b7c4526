import { range, type RunnerSink } from "./command-runners.js";

/** kubectl's commands (`kubectl __complete ""`, v1.32, with cobra's `help`, `completion` and `__complete*`, and `alpha`): any other word names a plugin. */
const BUILTINS = new Set(
  (
    "annotate api-resources api-versions apply attach auth autoscale certificate cluster-info completion config cordon cp create debug " +
    "delete describe diff drain edit events exec explain expose get help kustomize label logs options patch plugin port-forward proxy " +
    "replace rollout run scale set taint top uncordon version wait alpha __complete __completeNoDesc"
  ).split(" "),
);

/** `kubectl create`'s subcommands and their aliases (cobra finds both): another word after `create` names a plugin `kubectl-create-…`. */
const CREATE = new Set(
  (
    "clusterrole clusterrolebinding configmap cm cronjob cj deployment deploy ingress ing job namespace ns poddisruptionbudget pdb " +
    "priorityclass pc quota resourcequota role rolebinding secret service svc serviceaccount sa token"
  ).split(" "),
);

/** More words than this naming a plugin (`kubectl a b c …`) are not tried one by one. */
const MAX_PLUGIN_WORDS = 16;

/**
 * `kubectl foo a b` (foo not a command of kubectl's) runs the plugin `kubectl-foo` from PATH, or the
 * longest `kubectl-foo-a-b`, `kubectl-foo-a` that exists (dashes in a word become `_`: `kubectl foo-bar`
 * runs `kubectl-foo_bar`); `kubectl create foo` runs `kubectl-create-foo` the same way. Which one
 * exists is not known here: each is reported, with the words after it, as the same call under another
 * name (as `npx`'s). The words naming a plugin stop at the first option; a plugin can only be named
 * first (`kubectl -n x foo` is an error), and a word there that is not literal is unresolved.
 */
export function kubectlPlugin(args: string[], isLiteral: (i: number) => boolean, sink: RunnerSink): void {
  let start = 0;
  if (args[0] === "create") {
    if (args[1] === undefined || (isLiteral(1) && (args[1].startsWith("-") || CREATE.has(args[1])))) return;
    start = 1;
  } else if (args[0] === undefined || (isLiteral(0) && (args[0].startsWith("-") || BUILTINS.has(args[0])))) return;
  let end = start;
  while (end < args.length && !(isLiteral(end) && args[end]!.startsWith("-"))) {
    if (!isLiteral(end)) return sink.unresolved(`\`kubectl\` with a word that is not literal (\`${args[end]}\`) where it may name a plugin (\`kubectl-…\`)`);
    if (end - start >= MAX_PLUGIN_WORDS) return sink.unresolved(`\`kubectl\` with more than ${MAX_PLUGIN_WORDS} words that may name a plugin`);
    end++;
  }
  const pieces = args.slice(0, end).map((w) => w.replaceAll("-", "_"));
  for (let k = start + 1; k <= end; k++)
    sink.run([`kubectl-${pieces.slice(0, k).join("-")}`, ...args.slice(k)], [true, ...range(k, args.length, isLiteral)], true);
}

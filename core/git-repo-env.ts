/**
 * Variables that tell git which repository, work tree or index to use instead of the one it finds
 * from its working directory (git's own list, `git rev-parse --local-env-vars`, less the ones carrying
 * settings). keel picks the repository of a workspace from the workspace's own folders (the `.git` it
 * holds); one exported in your shell for another project (`GIT_DIR=~/dotfiles.git`) would otherwise
 * make keel's worktrees branches of that repository and merge them there.
 */
const REPO_LOCATION_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_IMPLICIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "GIT_GRAFT_FILE",
  "GIT_SHALLOW_FILE",
  "GIT_REPLACE_REF_BASE",
  "GIT_NO_REPLACE_OBJECTS",
  "GIT_INTERNAL_SUPER_PREFIX",
] as const;

/** `env` without the variables that point git at another repository (see REPO_LOCATION_VARIABLES): for keel's own git, which works on the repository its working directory is in. */
export function withoutRepoLocation(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of REPO_LOCATION_VARIABLES) delete out[name];
  return out;
}

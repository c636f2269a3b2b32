/* Compiler identity and config fingerprints (a spec is a contract).
 *
 * A tool's identity: argv[0] resolved as the runner's exec resolves it (PATH lookup), its `--version` text
 * (run through the runner with a timeout) and XXH3-128 of the binary's bytes (symlinks followed). The path
 * may differ across machines; the hash and the version text say whether two runs used the same build.
 *
 * A config's fingerprint: its steps after substitution (argv, where the report is read and how it is parsed),
 * each step's tool identity, the environment variables that change what a compiler does (pm_fp_env_names) and
 * the content hash of each of its input files (file axes), as text; the fingerprint is XXH3-128 of that text. Machine-specific paths become
 * placeholders ({work}: the sweep's work folder, {spec_dir}, {passmap}: passmap itself, {input}/{out}: the
 * config's input and run folder), so the same spec gives the same fingerprint on every machine. */
#ifndef PM_IDENTITY_H
#define PM_IDENTITY_H

#include <stddef.h>
#include "backend.h"
#include "error.h"
#include "store.h"

/* The environment variables a fingerprint records (set ones only; a name ending in '*' is a prefix),
 * NULL-terminated. */
extern const char *const pm_fp_env_names[];

/* A cache of identified tools (one `--version` run and one hash per distinct path per sweep). */
typedef struct pm_tool_set {
    pm_tool_ident *items;
    size_t n, cap;
} pm_tool_set;

/* The identity of argv0 (labelled `label`), from the set when already probed; `dir` holds the --version
 * run's output files. invoked: the program word as the step names it, machine paths as placeholders (NULL:
 * argv0): what merge matches builds on, so a spec whose axis picks the build (`llc-{llvm}`) records one
 * tool per build, never "another build" of one tool. *out points into the set. A tool that cannot be found or read still gets a row (hash
 * "", version text saying why): the step itself fails and is recorded as such. */
int pm_tool_identify(pm_tool_set *set, const char *argv0, const char *label, const char *invoked, const char *dir,
                     double timeout_s, const pm_tool_ident **out, pm_err *err);
void pm_tool_set_free(pm_tool_set *set);

/* A config's input files are part of its fingerprint: for each file axis (paths[i] non-NULL) the line
 * "input NAME: xxh3-128:HEX" of the file's bytes ("(unreadable)" when it cannot be read) is appended to *text and
 * the whole text hashed again into hash. An input edited before a resume (or a shard rerun from another checkout)
 * is then another fingerprint, refused like an edited argv. */
int pm_fingerprint_add_inputs(char **text, char hash[48], const pm_param *params, char *const *paths, size_t n,
                              pm_err *err);
/* Config c's fingerprint as the sweep records it: its steps from the back end (input "{input}", run folder
 * "{out}") through pm_fingerprint_steps, then its input files (pm_fingerprint_add_inputs). */
int pm_fingerprint_config(const pm_backend_ops *be, pm_backend_ctx *bctx, int c, const char *const *subst,
                          const char *self, pm_tool_set *tools, const char *dir, double timeout_s, char **text,
                          char hash[48], pm_err *err);
/* Whether a recorded fingerprint (hash, text) is config c's now (hash): equal, or recorded before input files
 * were fingerprinted (no "input " lines) and equal without the current text's input lines (accepted once: the
 * next runs record the current one). -1: out of memory. */
int pm_fingerprint_same(const char *old_hash, const char *old_text, const char *text, const char *hash);

/* The path prefixes a fingerprint replaces, as pm_fingerprint_steps' subst (out: 8 entries, NULL-terminated): the
 * work folder as {work}, the spec's folder as {spec_dir} (none when "." : a spec parsed from text), passmap
 * itself as {passmap}; longest first, so a work folder inside the spec folder becomes {work}. */
void pm_fp_subst(const char *work, const char *spec_dir, const char *self, const char *out[8]);

/* The fingerprint text of one run's steps (steps expanded with input "{input}" and run folder "{out}");
 * subst: pairs {from, to} of path prefixes to replace (longest first), NULL-terminated. self: passmap's own
 * path (its steps are the back end's, not a compiler: identified by name only). Heap text in *text, hash
 * "xxh3-128:HEX" in hash. */
int pm_fingerprint_steps(const pm_steps *steps, const char *const *subst, const char *self, pm_tool_set *tools,
                         const char *dir, double timeout_s, char **text, char hash[48], pm_err *err);

#endif

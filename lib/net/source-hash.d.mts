/** Where `npm start` writes the hash of the sources its last build was made from, relative to the checkout (lib/net/source-hash.mjs). */
export declare const SOURCE_HASH_STAMP: string;
/** Lowercase hex SHA-256 over the checkout's source files under `root` (build outputs, dependencies and data left out). */
export declare function sourceHash(root: string): string;
/** The hash of the sources the checkout's current build was made from (the stamp), or null when there is no stamped build. */
export declare function builtSourceHash(root: string): string | null;

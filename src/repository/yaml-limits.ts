/**
 * The bounds every YAML file of a repository (and the emulator's seed file) is read within. A file
 * past one of them is refused with a message naming the limit, before anything is expanded: the
 * repository is untrusted input, and without bounds a few hundred bytes of aliases or a few
 * thousand `[` can take the loader's memory or stack.
 */
export const YAML_LIMITS = {
  /**
   * Bytes of one file (UTF-8).
   * @default 1048576 (1 MiB)
   */
  fileBytes: 1_048_576,
  /**
   * Lists and mappings inside each other, counting the file's top-level mapping as 1 (so
   * `metadata: {a: [1]}` in a UDF's settings is 3 deep); aliases count with what they repeat.
   * @default 100
   */
  nesting: 100,
  /**
   * Values (scalars, lists and mappings) that aliases repeat in one file, in total: `*defaults`
   * naming a mapping of 5 keys repeats 11 (the mapping, its keys and its values).
   * @default 10000
   */
  aliasedValues: 10_000,
  /**
   * Characters of the text that aliases repeat in one file, in total: a long string repeated a few
   * thousand times stays under the values limit, and would still be sent and shown as gigabytes.
   * @default 1048576
   */
  aliasedCharacters: 1_048_576,
  /**
   * Characters that `${var.NAME}` and `${env.NAME}` references put into one file, in total (a
   * list or mapping counts as its JSON text): a long variable referenced a few thousand times
   * would otherwise be sent and shown as gigabytes.
   * @default 1048576
   */
  referencedCharacters: 1_048_576,
} as const;

/** `1,048,576`: how messages write a limit. */
export const formatCount = (n: number): string => n.toLocaleString("en-US");

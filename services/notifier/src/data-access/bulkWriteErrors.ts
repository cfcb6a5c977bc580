/** The failures a bulk write reported, by the index of the item each refused. */
export function writeErrorsByIndex(error: unknown): Map<number, { code?: number; errmsg?: string }> | null {
  const errors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (errors === undefined || errors === null) return null;
  const list = (Array.isArray(errors) ? errors : [errors]) as { index: number; code?: number; errmsg?: string }[];
  return new Map(list.map((e) => [e.index, e]));
}

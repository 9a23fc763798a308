// The name nearest to a misspelled one (a command's, for "did you mean"): the fewest single-character
// edits (insert, delete, replace, swap two neighbours), at most 2 and less than half the word.

/** Optimal string alignment distance of `a` and `b`. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate nearest to `word`, or undefined when none is near (the first of equally near ones). */
export function nearestName(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.ceil(word.length / 2) - 1);
  for (const c of candidates) {
    const distance = editDistance(word, c);
    if (distance <= bestDistance && (best === undefined || distance < editDistance(word, best))) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}

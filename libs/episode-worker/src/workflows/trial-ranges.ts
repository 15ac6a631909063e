/** Places in a plan's order as inclusive [first, last] ranges: a rollout's done trials in a few numbers. */
export const toRanges = (places: Iterable<number>): [number, number][] => {
  const ranges: [number, number][] = [];
  for (const place of [...new Set(places)].sort((a, b) => a - b)) {
    const last = ranges[ranges.length - 1];
    if (last && place === last[1] + 1) {
      last[1] = place;
    } else {
      ranges.push([place, place]);
    }
  }
  return ranges;
};

export const fromRanges = (ranges: readonly (readonly [number, number])[]): Set<number> => {
  const places = new Set<number>();
  for (const [first, last] of ranges) {
    for (let place = first; place <= last; place++) {
      places.add(place);
    }
  }
  return places;
};

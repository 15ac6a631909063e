/** Where the pages link: the console's routes, or nowhere in a self-contained report. */
export interface ReviewLinks {
  rollout?: (id: string) => string;
  episode?: (id: string) => string;
}

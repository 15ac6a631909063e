import { v8HeapLimitMb } from './mirror-config';

describe(v8HeapLimitMb.name, () => {
  it.each([
    [{}, 1024],
    [{ MIRROR_TWIN_MEMORY_MB: '' }, 1024],
    [{ MIRROR_TWIN_MEMORY_MB: '128' }, 640],
    [{ MIRROR_TWIN_MEMORY_MB: '0' }, undefined],
    [{ MIRROR_TWIN_MEMORY_MB: 'lots' }, undefined],
    [{ MIRROR_TWIN_MEMORY_MB: '-5' }, undefined],
  ])('for %j is %s MB', (environment, limit) => {
    expect(v8HeapLimitMb(environment)).toBe(limit);
  });
});

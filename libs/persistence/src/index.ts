export * from './data-source';
export * from './entities/stack.entity';
export * from './entities/stack-version.entity';
export * from './repositories/stack.repository';
export * from './repositories/postgres-episode.store';
export * from './repositories/repository-stack.source';
export * from './open-database';
export * from './repositories/episode-grade.repository';

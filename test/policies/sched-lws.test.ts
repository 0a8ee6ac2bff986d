/** The scheduler conformance suite for lws (locality work stealing). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({ name: 'lws', create: () => createScheduler('lws') });

/**
 * The EventBridge Scheduler client and the commands broadcast-scheduler.ts
 * sends, apart from it so that a function loads them on its first scheduled
 * broadcast rather than at every cold start (broadcast-scheduler.ts imports
 * this module with `import()`, which the bundles put in a chunk of its own).
 * Locally the stand-in dev/local/scheduler.ts answers the same calls.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { awsConnection, config } from '#shared/platform/config.ts';

export { ConflictException, CreateScheduleCommand, DeleteScheduleCommand, ResourceNotFoundException, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';

/** Module scope, so a warm Lambda reuses its connections. */
export const scheduler = new SchedulerClient({ ...awsConnection(config.SCHEDULER_ENDPOINT), maxAttempts: 3 });

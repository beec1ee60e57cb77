import { applySesEvent, type SesEventBridgeEvent } from '#shared/domain/feedback.ts';

/** Invoked by the EventBridge rule of lib/feedback.ts; a throw makes Lambda retry the event. */
export const handler = async (event: SesEventBridgeEvent): Promise<void> => {
  await applySesEvent(event, new Date());
};

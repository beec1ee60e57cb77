/**
 * The route table: every area's contract, each endpoint once per path. The
 * CDK stack makes one function per handler and one API route per entry, the
 * local server dispatches by it, the OpenAPI document describes it and the
 * tests walk it. Adding an endpoint: its entry in functions/<area>/contract.ts
 * and its handler beside it; a new area adds its contract here.
 */
import { routesOfArea, type Endpoint } from '#shared/platform/http/contract.ts';
import { apiKeys } from './api-keys/contract.ts';
import { attachments } from './attachments/contract.ts';
import { audiences } from './audiences/contract.ts';
import { broadcasts } from './broadcasts/contract.ts';
import { contacts } from './contacts/contract.ts';
import { domains } from './domains/contract.ts';
import { email } from './email/contract.ts';
import { emails } from './emails/contract.ts';
import { events } from './events/contract.ts';
import { forms } from './forms/contract.ts';
import { otp } from './otp/contract.ts';
import { session } from './session/contract.ts';
import { stats } from './stats/contract.ts';
import { subscriptions } from './subscriptions/contract.ts';
import { suppressions } from './suppressions/contract.ts';
import { system } from './system/contract.ts';
import { team } from './team/contract.ts';
import { templates } from './templates/contract.ts';
import { transactional } from './transactional/contract.ts';
import { webhooks } from './webhooks/contract.ts';

export const AREAS = {
  audiences,
  contacts,
  templates,
  domains,
  subscriptions,
  email,
  attachments,
  otp,
  transactional,
  emails,
  events,
  webhooks,
  forms,
  system,
  broadcasts,
  session,
  team,
  'api-keys': apiKeys,
  stats,
  suppressions,
} as const;

export const ROUTES: readonly Endpoint[] = Object.values(AREAS).flatMap((area) => routesOfArea(area));

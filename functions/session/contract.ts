import { dataReply } from '#shared/platform/schema/replies.ts';
import { defineArea, PUBLIC, SIGNED_IN } from '#shared/platform/http/contract.ts';
import { messageReply, requestCodeBody, sessionSchema, signInBody, switchAccountBody } from '#shared/people/schema.ts';

export const session = defineArea('session', {
  requestCode: {
    method: 'POST',
    path: '/api/session/code',
    ...PUBLIC,
    throttle: 'public',
    // The address's accounts (Query) beside the code's window and hash (UpdateItem), for anyone who asks; the mail is queued either way.
    table: ['Query', 'UpdateItem'],
    queues: ['retry'],
    request: { body: requestCodeBody },
    responses: { 200: messageReply },
    summary: 'Mail a sign-in code',
    description:
      "Answers the same 200 whatever the address, so it never tells who is a member. A member's address gets a 6-digit code by email, valid 10 minutes; a new code replaces the one before; an address gets at most 5 codes an hour (later requests answer the same and send nothing).",
    example: { email: 'ada@example.com' },
  },
  create: {
    method: 'POST',
    path: '/api/session',
    ...PUBLIC,
    throttle: 'public',
    // A try of the code (UpdateItem), the address's accounts (Query), then one transaction: the code spent, the session, the
    // member's sign-in and its event (UpdateItem, PutItem); the Session's member and account names (GetItem).
    table: ['GetItem', 'Query', 'PutItem', 'UpdateItem'],
    request: { body: signInBody },
    responses: { 200: dataReply(sessionSchema) },
    errors: ['INVALID_CODE', 'ACCOUNT_NOT_FOUND'],
    summary: 'Sign in with a mailed code',
    description:
      'Answers the Session and sets the session cookie (HttpOnly, SameSite=Strict; Secure and named `__Host-postlane_session` when the deployment is served over https, else `postlane_session`). A wrong or expired code is 401 `INVALID_CODE`; 5 wrong tries void the code. Without `accountId`, the session acts on the first account the address joined.',
    example: { email: 'ada@example.com', code: '482913' },
  },
  get: {
    method: 'GET',
    path: '/api/session',
    ...SIGNED_IN,
    table: ['GetItem', 'Query'],
    request: {},
    responses: { 200: dataReply(sessionSchema) },
    summary: 'The current session',
    description: 'The signed-in person, the account the session acts on and every account they may switch to; 401 `UNAUTHORIZED` when signed out.',
  },
  update: {
    method: 'PATCH',
    path: '/api/session',
    ...SIGNED_IN,
    table: ['GetItem', 'Query', 'UpdateItem'],
    request: { body: switchAccountBody },
    responses: { 200: dataReply(sessionSchema) },
    errors: ['ACCOUNT_NOT_FOUND'],
    summary: 'Switch the session to another account',
    description: 'The person must be a member of that account: any other id is 404 `ACCOUNT_NOT_FOUND`, the same for one that does not exist.',
    example: { accountId: 'acc_2Bz9YpQk4mN7xR1vT3wLd8' },
  },
  delete: {
    method: 'DELETE',
    path: '/api/session',
    ...SIGNED_IN,
    table: ['DeleteItem'],
    request: {},
    responses: { 200: messageReply },
    summary: 'Sign out',
    description: 'Deletes the session on the server, so its cookie is worth nothing from then on, and clears the cookie.',
  },
});

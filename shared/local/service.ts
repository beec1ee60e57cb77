/** A part of the local stack (DynamoDB Local, the SES emulator, the HTTP API) that `npm start` and the tests run. */
export interface LocalService {
  endpoint: string;
  stop(): Promise<void>;
}

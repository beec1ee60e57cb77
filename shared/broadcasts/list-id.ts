/**
 * The `List-Id` header of broadcast messages (RFC 2919): it marks them as
 * list mail, one list per audience, so that mail software can file and
 * filter them and spam filters do not score a short broadcast as a list
 * message that hides it (SpamAssassin's LIST_PARTIAL_SHORT_MSG).
 */
import { formatPhrase } from '#shared/sending/address.ts';

/** RFC 2919: the identifier between the angle brackets is at most 255 octets. */
const MAX_LIST_ID = 255;
/**
 * Characters of the audience's name kept in the description: 64 characters
 * of 4-byte UTF-8 as encoded words, with the identifier, stay well within the
 * 870 characters SES takes in a header value.
 */
const MAX_DESCRIPTION = 64;

/**
 * `"Audience name" <aud_….news.example.com>`: the audience's id under the
 * sender's domain, which the account verified (so no other list can claim
 * the name, and an audience keeps one identifier whoever of its broadcasts
 * sends), described by the audience's name. Control characters in the name
 * become spaces and a long one is cut short; without a name (the audience was
 * deleted since) the identifier stands alone. Undefined when the identifier
 * would pass RFC 2919's 255 octets (a domain of more than 220 characters).
 *
 * `listId('aud_0BqM3x', 'news.example.com', 'Weekly news')` gives `Weekly news <aud_0BqM3x.news.example.com>`
 */
export function listId(audienceId: string, senderDomain: string, name: string | undefined): string | undefined {
  const id = `${audienceId}.${senderDomain}`;
  if (id.length > MAX_LIST_ID) return undefined;
  const description = [...(name ?? '').replace(/\p{Cc}/gu, ' ')].slice(0, MAX_DESCRIPTION).join('').replace(/\s+/g, ' ').trim();
  return description ? `${formatPhrase(description)} <${id}>` : `<${id}>`;
}

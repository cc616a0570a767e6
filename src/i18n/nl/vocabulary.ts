/**
 * Nederlandse woorden van het domein zoals mensen ze zien: probleemcodes, gebeurtenissen, statussen,
 * rollen en de staat van een boek. Sleutels en vorm volgen de Engelse bronnen (en/vocabulary.ts).
 */
import type {
  conditions as enConditions,
  events as enEvents,
  fields as enFields,
  problems as enProblems,
  roles as enRoles,
  Words,
} from '../en/vocabulary.js';

export const problems: Words<keyof typeof enProblems> = {
  'validation-failed': 'De gegevens zijn niet geldig',
  'invalid-ean': "Een of meer EAN's zijn ongeldig",
  'malformed-body': 'De inhoud van het verzoek is onleesbaar',
  'malformed-request': 'Het verzoek is onjuist opgebouwd',
  unauthenticated: 'U moet eerst inloggen',
  'invalid-token': 'Het toegangstoken is ongeldig',
  'token-expired': 'Het toegangstoken is verlopen',
  'insufficient-scope': 'Het toegangstoken geeft hier geen recht op',
  'csrf-rejected': 'Het CSRF-token ontbreekt of klopt niet; laad de pagina opnieuw',
  forbidden: 'Uw rol als beheerder staat dit niet toe',
  'not-found': 'Niet gevonden',
  'route-not-found': 'Dit adres bestaat niet',
  'request-timeout': 'Het verzoek kwam niet op tijd binnen',
  conflict: 'Dit botst met de huidige toestand',
  'client-revoked': 'De partner is ingetrokken',
  'illegal-transition': 'Deze statuswijziging is niet toegestaan',
  'subscription-limit': 'De partner heeft het maximale aantal abonnementen bereikt',
  'idempotency-key-in-use': 'Een verzoek met deze Idempotency-Key wordt nog verwerkt',
  'cursor-expired': 'De cursor is ouder dan de bewaartermijn van gebeurtenissen',
  'body-too-large': 'De inhoud van het verzoek is te groot',
  'uri-too-long': 'Het adres van het verzoek is te lang',
  'unsupported-media-type': 'Dit inhoudstype wordt niet ondersteund',
  'blocked-address': 'De ontvanger-URL wijst naar een adres dat niet is toegestaan (lokaal of privé)',
  'unresolvable-host': 'De host van de ontvanger-URL bestaat niet',
  'rate-limited': 'Te veel verzoeken; probeer het straks opnieuw',
  'headers-too-large': 'De headers van het verzoek zijn te groot',
  'replay-too-large': 'Opnieuw afspelen zou de grens overschrijden',
  'idempotency-key-reused': 'Deze Idempotency-Key is al voor een ander verzoek gebruikt',
  internal: 'Interne serverfout',
  unavailable: 'De dienst is tijdelijk niet beschikbaar',
};

export const events: Words<keyof typeof enEvents> = {
  'school.created': 'School aangemaakt',
  'school.modified': 'School gewijzigd',
  'list.created': 'Lijst aangemaakt',
  'list.updated': 'Lijst bijgewerkt',
  'list.status': 'Status van lijst gewijzigd',
  'list.published': 'Lijst gepubliceerd',
  'offer.published': 'Aanbieding gepubliceerd',
  'offer.updated': 'Aanbieding bijgewerkt',
  'offer.status': 'Status van aanbieding gewijzigd',
  'subscription.failing': 'Abonnement faalt',
  'subscription.disabled': 'Abonnement uitgeschakeld',
  ping: 'Testping',
};

export const roles: Words<keyof typeof enRoles> = { viewer: 'meekijker', support: 'ondersteuner', admin: 'admin' };

export const conditions: Words<keyof typeof enConditions> = {
  excellent: 'uitstekend',
  good: 'goed',
  acceptable: 'redelijk',
};

export const fields: Words<keyof typeof enFields> = {
  notificationUrl: 'Ontvanger-URL',
  event: 'Gebeurtenis',
  eans: "EAN's",
  list: 'Lijst',
  name: 'Naam',
  ean: 'EAN',
  price: 'Prijs',
  title: 'Titel',
  items: 'Titels',
};

/** The labels beside the API's state words (web/common/states.ts has the English ones). */
export const states = {
  delivery: {
    pending: 'in de wachtrij',
    succeeded: 'afgeleverd',
    failed: 'niet afgeleverd',
    cancelled: 'geannuleerd: partner ingetrokken',
  },
  retrying: { pending: 'wordt opnieuw geprobeerd' },
  failing: { active: 'komt niet aan' },
  subscription: {
    active: 'ontvangt',
    disabled: 'er wordt niets verstuurd',
    revoked: 'beëindigd: partner ingetrokken',
  },
  client: { active: 'toegang werkt', revoked: 'toegang geweigerd' },
  list: { created: 'concept', validated: 'gecontroleerd, niet openbaar', published: 'openbaar', archived: 'verborgen' },
  offer: {
    draft: 'nog niet te koop',
    published: 'te koop',
    reserved: 'gereserveerd',
    sold: 'verkocht',
    withdrawn: 'uit de verkoop',
  },
} as const;

/** Nederlands: de pagina's die de server opbouwt (de schil van console en portaal, de startpagina, geweigerde aanmeldingen). */
import type { pages as en } from '../en/pages.js';
import type { Message } from '../message.js';

export const pages: { readonly [K in keyof typeof en]: Message } = {
  'shell.console.name': 'beheerconsole',
  'shell.portal.name': 'partnerportaal',
  'shell.sections': 'Onderdelen',
  'shell.signOut': 'Uitloggen',
  'shell.language': 'Taal',
  'shell.console.noscript':
    'De console werkt alleen met JavaScript. Dezelfde handelingen kunnen ook via de beheer-API (zie /docs) en de opdrachtregel (npx shelfmark).',
  'shell.portal.noscript':
    'Het portaal werkt alleen met JavaScript. Dezelfde handelingen kunnen ook via de API (zie /docs).',
  'shell.footer.apiReference': 'API-naslag',
  'shell.footer.metrics': 'meetwaarden',
  'shell.footer.readiness': 'gereedheid',
  'nav.overview': 'Overzicht',
  'nav.clients': 'Partners',
  'nav.lml': 'Scholen & lijsten',
  'nav.offers': 'Aanbod',
  'nav.subscriptions': 'Abonnementen',
  'nav.deliveries': 'Afleveringen',
  'nav.storage': 'Opslag',
  'nav.operators': 'Beheerders',
  'nav.audit': 'Auditlog',
  'nav.credentials': 'Toegangsgegevens',
  'home.tagline': 'tweedehands schoolboeken, leermiddelenlijsten en ondertekende webhooks',
  'home.intro':
    'Deze server biedt tweedehands schoolboeken per EAN, leermiddelenlijsten en webhooks die met uw geheim zijn ondertekend. Koppelende partijen halen een token op bij {tokenPath} (OAuth 2.0 client credentials) en beginnen bij de API-naslag.',
  'home.docs': 'API-naslag',
  'home.docs.what': 'elk endpoint met zijn parameters, antwoorden en foutmeldingen',
  'home.openapi': 'OpenAPI-document',
  'home.openapi.what': 'voor codegeneratoren en contracttests',
  'home.portal': 'Partnerportaal',
  'home.portal.what': 'toegangsgegevens, webhookabonnementen en afleveringen (inloglink van uw beheerder)',
  'home.console': 'Beheerconsole',
  'home.console.what': 'partners, scholen, lijsten, aanbod en afleveringen (beheertoken)',
  'home.liveness': 'Levend',
  'home.liveness.what': 'het proces antwoordt',
  'home.readiness': 'Gereed',
  'home.readiness.what': 'de database antwoordt',
  'home.signInWith': 'Aanmelden met {provider}',
  'home.signInWith.what': 'de beheerconsole, via de aanmelding van je organisatie',
  'refusal.title': 'Inloggen geweigerd',
  'refusal.back': 'Terug naar de inlogpagina',
  'refusal.unreachable': 'de identiteitsprovider {issuer} is niet bereikbaar: {detail}',
  'refusal.no-sign-in':
    'in deze browser loopt geen aanmelding op {origin}: die is verlopen, al afgerond of op een ander adres begonnen. Open de console op {origin} en begin opnieuw.',
  'refusal.no-role':
    'deze identiteit heeft geen rol in Shelfmark: de claim {claim} bevat {values}, waarvoor OIDC_ROLE_MAP geen rol kent, en het e-mailadres staat niet in OPERATOR_ADMINS',
  'refusal.no-role-claim':
    'deze identiteit heeft geen rol in Shelfmark: er is geen rolclaim ingesteld, en het e-mailadres staat niet in OPERATOR_ADMINS',
  'refusal.disabled': 'deze beheerder is in Shelfmark uitgeschakeld; een admin kan hem of haar weer inschakelen.',
  'refusal.not-configured':
    'inloggen via een identiteitsprovider is niet ingesteld (OIDC_ISSUER); gebruik het beheertoken.',
  'refusal.provider-refused': 'de identiteitsprovider heeft de aanmelding geweigerd: {detail}',
  'refusal.code-refused':
    'de provider heeft de autorisatiecode geweigerd: die is al gebruikt (een herhaalde callback), verlopen of hoort bij een andere aanmelding.',
  'refusal.exchange-refused': 'het tokenendpoint van de provider heeft de uitwisseling geweigerd: {detail}',
  'refusal.state':
    'de state van de callback past niet bij de aanmelding in deze browser: een vervalste of verwisselde callback. Begin opnieuw.',
  'refusal.issuer': 'het antwoord komt van een andere uitgever dan de ingestelde OIDC_ISSUER: {detail}',
  'refusal.nonce':
    'de nonce van het ID-token past niet bij deze aanmelding: het token is voor een andere aanmelding uitgegeven.',
  'refusal.provider-unreachable': 'de identiteitsprovider is niet bereikbaar: {detail}',
  'refusal.check-failed': 'het antwoord van de provider doorstond een controle niet: {detail}',
};

/** Nederlands: het partnerportaal. */
import type { portal as en } from '../en/portal.js';
import type { Message } from '../message.js';

export const portal: { readonly [K in keyof typeof en]: Message } = {
  'portal.signedOut': 'Uitgelogd',
  'portal.openLink': 'Open de inloglink die uw beheerder u heeft gestuurd. Elke link werkt één keer, 15 minuten lang.',
  'portal.sessionEnded': 'Uw sessie is afgelopen. Vraag uw beheerder om een nieuwe inloglink.',
  'portal.youSignedOut': 'U bent uitgelogd. Gebruik een nieuwe inloglink van uw beheerder om terug te komen.',
  'portal.linkIncomplete': 'Deze inloglink is onvolledig. Kopieer de hele link uit het bericht van uw beheerder.',
  'portal.linkInvalid': 'Deze inloglink is ongeldig, al gebruikt of verlopen. Vraag uw beheerder om een nieuwe.',
  'cred.title': 'Toegangsgegevens',
  'cred.neverReset':
    'Het clientgeheim is niet vernieuwd sinds de partner is aangemaakt: elk token dat ermee is opgehaald, blijft geldig tot het verloopt.',
  'cred.lastReset': 'Het clientgeheim is voor het laatst vernieuwd {when}: tokens van daarvoor worden geweigerd.',
  'cred.clientId': 'Client-ID: ',
  'cred.status': 'Status: {status} · rechten: {scopes}',
  'cred.resetLabel': 'Clientgeheim vernieuwen',
  'cred.newSecret': 'Nieuw clientgeheim',
  'cred.secretTitle': 'Clientgeheim',
  'cred.secretNote':
    'Vernieuw het als het mogelijk is uitgelekt. Het oude geheim en elk token dat ermee is opgehaald, werken meteen niet meer.',
  'cred.resetQuestion': 'Uw clientgeheim vernieuwen? Het huidige geheim en al zijn tokens werken meteen niet meer.',
  'cred.rotateLabel': 'Webhookgeheim wisselen',
  'cred.oldKeepsSigning':
    'Het oude geheim ondertekent nog mee tot {until}, zodat ontvangers kunnen overstappen zonder een aflevering te missen.',
  'cred.newWebhookSecret': 'Nieuw webhookgeheim',
  'cred.webhookTitle': 'Webhookgeheim',
  'cred.webhookNote':
    'Webhooks worden ermee ondertekend. Na een wissel ondertekent het oude geheim nog een tijdje mee, zodat u uw ontvangers kunt omzetten zonder een aflevering te missen.',
  'cred.rotateQuestion': 'Uw webhookgeheim wisselen?',
  'cred.webhookWhere':
    'Waar u het vindt: het webhookgeheim begint met whsec_ en wordt alleen getoond wanneer het wordt uitgegeven — aan uw beheerder toen uw partner werd aangemaakt, naast het clientgeheim, en hier na een wissel. Het kan niet opnieuw worden getoond: vraag het aan uw beheerder, of wissel het hieronder en geef het nieuwe aan uw ontvanger.',
  'psubs.signedWith':
    'Elke webhook naar deze ontvangers is ondertekend met uw webhookgeheim, zodat uw ontvanger kan nagaan dat hij van ons komt. Waar u het geheim vindt: {credentials}.',
  'pdel.testPing': 'testping',
  'pdel.deleted': '{resource} {id}… (verwijderd)',
  'pdel.detail': '{outcome} · naar {receiver} · aangemaakt {when} · afleverings-ID {id}',
  'pdel.detailNoReceiver': '{outcome} · aangemaakt {when} · afleverings-ID {id}',
  'pdel.anyEvent': 'elke gebeurtenis',
  'pdel.until': 'Tot',
  'pdel.oneSubscription': 'Alleen één abonnement. ',
  'pdel.title': 'Afleveringen',
  'pdel.none':
    'Nog geen afleveringen. Ze verschijnen hier zodra er iets gebeurt waarop u bent geabonneerd; gebruik "Testping versturen" bij een abonnement om uw ontvanger te proberen.',
  'pdel.firstPage': 'Eerste pagina',
  'pdel.nextPage': 'Volgende pagina',
  'ping.succeeded': 'Testping naar {url} geslaagd: de ontvanger antwoordde HTTP {status} in {took}.',
  'ping.answered': 'de ontvanger antwoordde HTTP {status}',
  'ping.failed': 'Testping naar {url} mislukt: {why} na {took}. Een ping slaagt alleen bij een 2xx-antwoord.',
  'ping.notSent': 'Testping niet verstuurd: {problem}',
  'ping.waiting': 'Testping verstuurd naar {url}; wachten op het antwoord…',
  'ping.resultLead': 'Resultaat van de testping: ',
  'ping.resultLine': '{result} in {took} · {when}',
  'ping.notYet': 'De testping is nog niet geprobeerd; zie Afleveringen voor het resultaat.',
  'psubs.title': 'Abonnementen',
  'psubs.chooseRecoverTime': 'Kies de datum en tijd vanaf wanneer u wilt herstellen.',
  'cred.resetDone': 'Nieuw clientgeheim uitgegeven; het oude werkt niet meer.',
  'cred.rotateDone': 'Nieuw webhookgeheim uitgegeven.',
  'psubs.reenabled': 'Abonnement weer ingeschakeld: nieuwe gebeurtenissen worden weer afgeleverd.',
  'psubs.deleted': 'Abonnement verwijderd.',
  'psubs.recoverLabel': 'Mislukte afleveringen herstellen',
  'psubs.recovered': {
    one: 'Mislukte afleveringen herstellen: {count} aflevering staat weer in de wachtrij.',
    other: 'Mislukte afleveringen herstellen: {count} afleveringen staan weer in de wachtrij.',
  },
  'psubs.replayed': {
    one: 'Gebeurtenissen opnieuw afspelen: {count} gebeurtenis klaargezet voor aflevering.',
    other: 'Gebeurtenissen opnieuw afspelen: {count} gebeurtenissen klaargezet voor aflevering.',
  },
  'psubs.deleteLabel': 'Abonnement verwijderen',
  'psubs.sendPing': 'Testping versturen',
  'psubs.recoverSince': 'Mislukte afleveringen herstellen vanaf',
  'psubs.recover': 'Herstellen',
  'psubs.deleteQuestion': 'Het abonnement op {url} verwijderen? Afleveringen die nog wachten, vervallen.',
  'psubs.subscribed': '{url} geabonneerd op {event}.',
  'psubs.none':
    'Nog geen abonnementen. Voeg hierboven een ontvanger-URL toe om bericht te krijgen als lijsten veranderen.',
};

export {};
import { benchDelivery } from './delivery.js';
const r = await benchDelivery(Number(process.env.N ?? 3000));
console.log(JSON.stringify(r).slice(0, 300));
process.exit(0);

/** The wire shape of an operator (the admin API and the console's Operators page). */
import { type Static, Type } from '@sinclair/typebox';
import { ROLES } from '../vocabulary/actor.js';

export const OperatorSchema = Type.Object(
  {
    sub: Type.String({ description: "The identity's subject at the provider" }),
    issuer: Type.String({ description: "The provider's issuer identifier" }),
    email: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
    role: Type.Union(
      ROLES.map((role) => Type.Literal(role)),
      { description: "As of the last sign-in: a change at the provider applies at the operator's next sign-in" },
    ),
    status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
    firstSignInAt: Type.String({ format: 'date-time' }),
    lastSignInAt: Type.String({ format: 'date-time' }),
    disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'Operator' },
);

export const OperatorList = Type.Object({ data: Type.Array(OperatorSchema) });

export type OperatorView = Static<typeof OperatorSchema>;

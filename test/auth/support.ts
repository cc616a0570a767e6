/** Shared helpers of the auth tests. */
import * as oauth from 'oauth4webapi';

/**
 * A client_credentials grant as oauth4webapi makes it, unmodified: the request, and the token response
 * the library accepts (it throws on an answer a standard client would refuse).
 */
export async function oauth4webapiGrant(
  as: oauth.AuthorizationServer,
  clientId: string,
  authentication: oauth.ClientAuth,
  options: oauth.ClientCredentialsGrantRequestOptions,
  parameters: URLSearchParams = new URLSearchParams(),
): Promise<oauth.TokenEndpointResponse> {
  const client: oauth.Client = { client_id: clientId };
  const response = await oauth.clientCredentialsGrantRequest(as, client, authentication, parameters, options);
  return oauth.processClientCredentialsResponse(as, client, response);
}

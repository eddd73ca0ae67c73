//! The HTTP transport on an async runtime: the same endpoints (the `tongcheng-api` contract),
//! request building, retries and errors as the blocking [`crate::HttpApi`], executed by
//! reqwest's async client. For callers that run many players on one runtime (the load
//! generator); a phone's shell uses the blocking one.

use std::time::Duration;

use reqwest::{Client, RequestBuilder, Response};
use serde::Serialize;
use tongcheng_api::auth::LoginResponse;
use tongcheng_api::endpoints::{Challenge, Login, Queue};
use tongcheng_api::play::{QueueRequest, Seated};
use tongcheng_api::{Endpoint, NoBody, NoParams, RequestBody, ResponseBody};

use crate::error::{ClientError, describe};
use crate::http_call::{
    Api, HttpOptions, RetryPolicy, Tried, USER_AGENT, answer, base_url, login_retryable, prepare,
    reqwest_method, retry_after,
};
use crate::identity::Identity;
use crate::matchmaking::QUEUE_POLL_LIMIT;

/// The server's API over HTTP, on the caller's tokio runtime.
pub type AsyncHttpApi = Api<Client>;

impl AsyncHttpApi {
    /// An API client for the server at `server` (`http://host:port` or `https://...`).
    pub fn new(server: &str, options: HttpOptions) -> Result<AsyncHttpApi, ClientError> {
        let base = base_url(server)?;
        let mut http = Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(60))
            .user_agent(USER_AGENT)
            .local_address(options.local_address);
        if !options.keep_alive {
            http = http.pool_max_idle_per_host(0);
        }
        let http = http
            .build()
            .map_err(|e| ClientError::Network(e.to_string()))?;
        Ok(Api::from_parts(base, http))
    }

    fn request<E: Endpoint>(
        &self,
        path: &str,
        query: &E::Query,
        body: Option<&Vec<u8>>,
    ) -> RequestBuilder
    where
        E::Query: Serialize,
    {
        let mut r = self
            .http
            .request(reqwest_method(E::METHOD), format!("{}{path}", self.base))
            .query(query);
        if let Some(b) = body {
            r = r
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(b.clone());
        }
        match &self.token {
            Some(t) => r.bearer_auth(t),
            None => r,
        }
    }

    /// Sends what `build` makes, retrying transient failures as `retry` allows; the
    /// successful response.
    async fn send(
        &self,
        retry: RetryPolicy,
        build: impl Fn() -> RequestBuilder,
    ) -> Result<Response, ClientError> {
        let mut tries = 0;
        loop {
            let (tried, err) = match build().send().await {
                Ok(resp) if resp.status().is_success() => return Ok(resp),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = retry_after(resp.headers());
                    let tried = Tried::Refused {
                        status,
                        retry_after,
                    };
                    let text = resp.text().await.unwrap_or_default();
                    (tried, ClientError::refused(status, &text))
                }
                Err(e) => (Tried::NoAnswer, ClientError::Network(describe(&e))),
            };
            match retry.again(tries, tried) {
                Some(wait) => tokio::time::sleep(wait).await,
                None => return Err(err),
            }
            tries += 1;
        }
    }

    async fn call_with<E>(
        &self,
        retry: RetryPolicy,
        params: &E::Params,
        query: &E::Query,
        body: &E::Request,
    ) -> Result<E::Response, ClientError>
    where
        E: Endpoint,
        E::Query: Serialize,
        E::Request: RequestBody,
        E::Response: ResponseBody,
    {
        let (path, body) = prepare::<E>(params, body)?;
        let resp = self
            .send(retry, || self.request::<E>(&path, query, body.as_ref()))
            .await?;
        let text = resp
            .text()
            .await
            .map_err(|e| ClientError::Network(describe(&e)))?;
        answer::<E>(&text)
    }

    /// Calls endpoint `E` with its path parameters, query and body (retrying transient
    /// failures): its answer.
    pub async fn call<E>(
        &self,
        params: &E::Params,
        query: &E::Query,
        body: &E::Request,
    ) -> Result<E::Response, ClientError>
    where
        E: Endpoint,
        E::Query: Serialize,
        E::Request: RequestBody,
        E::Response: ResponseBody,
    {
        self.call_with::<E>(self.retry, params, query, body).await
    }

    /// Logs in with the device's key, as [`crate::HttpApi::login`] does. Sets the session
    /// token on success.
    pub async fn login(
        &mut self,
        identity: &Identity,
        device_name: &str,
        link_code: Option<&str>,
    ) -> Result<LoginResponse, ClientError> {
        self.token = None;
        // Each challenge is single use: a failed login is tried again from a new one.
        let once = RetryPolicy {
            attempts: 1,
            ..self.retry
        };
        let mut tries = 0;
        loop {
            let challenge = self
                .call::<Challenge>(&NoParams {}, &NoParams {}, &NoBody)
                .await?;
            let req = identity.login_request(challenge.nonce, device_name, link_code)?;
            match self
                .call_with::<Login>(once, &NoParams {}, &NoParams {}, &req)
                .await
            {
                Ok(r) => {
                    self.token = Some(r.token.clone());
                    return Ok(r);
                }
                Err(e) if login_retryable(&e) && tries + 1 < self.retry.attempts => {
                    tokio::time::sleep(self.retry.backoff(tries)).await;
                    tries += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Waits in the queue of `rules` (ranked or casual) until seated; cancelled by dropping
    /// the future (its connection closes, and the server takes the player out of the queue).
    /// Not retried: a new request is a new place at the back of the queue.
    pub async fn queue(&self, rules: Option<&str>, ranked: bool) -> Result<Seated, ClientError> {
        let request = QueueRequest {
            rules: rules.map(str::to_string),
            ranked,
        };
        let (path, body) = prepare::<Queue>(&NoParams {}, &request)?;
        let once = RetryPolicy {
            attempts: 1,
            ..self.retry
        };
        let resp = self
            .send(once, || {
                self.request::<Queue>(&path, &NoParams {}, body.as_ref())
                    .timeout(QUEUE_POLL_LIMIT)
            })
            .await?;
        let text = resp
            .text()
            .await
            .map_err(|e| ClientError::Network(describe(&e)))?;
        answer::<Queue>(&text)
    }
}

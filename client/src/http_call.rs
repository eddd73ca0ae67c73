//! What the blocking [`crate::HttpApi`] and the async [`crate::AsyncHttpApi`] share: how
//! connections are made, the retry policy, and each endpoint's request and answer as the
//! `tongcheng-api` contract describes them. Each executor only sends.

use std::net::IpAddr;
use std::time::Duration;

use tongcheng_api::{Endpoint, Method, RequestBody, ResponseBody};

use crate::error::ClientError;

/// How hard to try before giving up.
#[derive(Clone, Copy, Debug)]
pub struct RetryPolicy {
    /// Tries in all (1: no retry).
    pub attempts: u32,
    /// The first wait; doubled every retry.
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// The longest `Retry-After` honoured; a longer one gives up instead.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            attempts: 5,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let d = self
            .base_delay
            .saturating_mul(1 << retry.min(16))
            .min(self.max_delay);
        // Up to a quarter more, so many phones cut off together do not come back together.
        let jitter = (tongcheng_core::clock::unix_nanos() % 1000) as f64;
        d + d.mul_f64(jitter / 4000.0)
    }
}

/// How a client's connections are made.
#[derive(Clone, Copy, Debug)]
pub struct HttpOptions {
    /// The source address of every connection (a load generator gives each player its own
    /// loopback address, as each phone has its own); none: the system's choice.
    pub local_address: Option<IpAddr>,
    /// Keep connections open between requests. Off, each request has its own connection,
    /// closed after the answer (thousands of mostly idle clients then hold no descriptors).
    pub keep_alive: bool,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            local_address: None,
            keep_alive: true,
        }
    }
}

/// `http(s)://host:port` without its trailing slash, or why not.
pub(crate) fn base_url(server: &str) -> Result<String, ClientError> {
    let base = server.trim_end_matches('/').to_string();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(ClientError::Network(format!(
            "'{server}' is not an http:// or https:// URL"
        )));
    }
    Ok(base)
}

pub(crate) const USER_AGENT: &str = concat!("tongcheng-client/", env!("CARGO_PKG_VERSION"));

pub(crate) fn reqwest_method(method: Method) -> reqwest::Method {
    match method {
        Method::Get => reqwest::Method::GET,
        Method::Post => reqwest::Method::POST,
        Method::Delete => reqwest::Method::DELETE,
    }
}

/// Endpoint `E`'s path and JSON body: what both executors send.
pub(crate) fn prepare<E>(
    params: &E::Params,
    body: &E::Request,
) -> Result<(String, Option<Vec<u8>>), ClientError>
where
    E: Endpoint,
    E::Request: RequestBody,
{
    let body = body
        .to_json()
        .transpose()
        .map_err(|e| ClientError::Protocol(e.to_string()))?;
    Ok((E::path(params), body))
}

/// Endpoint `E`'s answer from a successful response's text.
pub(crate) fn answer<E>(text: &str) -> Result<E::Response, ClientError>
where
    E: Endpoint,
    E::Response: ResponseBody,
{
    E::Response::from_body(text).map_err(|e| ClientError::Protocol(e.to_string()))
}

/// Whether an answer with this status may be retried (the request did not take effect).
pub(crate) fn transient(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

/// The wait a `Retry-After` header asks for, in seconds.
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs)
}

/// Whether a failed login is worth another try with a fresh challenge.
pub(crate) fn login_retryable(e: &ClientError) -> bool {
    matches!(
        e,
        ClientError::Network(_)
            | ClientError::Server {
                status: 429 | 503,
                ..
            }
    )
}

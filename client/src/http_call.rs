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

/// How one try ended, as far as retrying goes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tried {
    /// The server answered `status` (not a success), with a `Retry-After` or without.
    Refused {
        status: u16,
        retry_after: Option<Duration>,
    },
    /// No answer: no connection, a timeout, a cut connection.
    NoAnswer,
}

impl RetryPolicy {
    /// Whether try number `tries` (from 0), which ended as `tried`, is tried again, and after
    /// how long: transient failures only, within the attempts, and never after a longer
    /// `Retry-After` than the policy honours. Both transports ask this; they only wait.
    pub(crate) fn again(&self, tries: u32, tried: Tried) -> Option<Duration> {
        if tries + 1 >= self.attempts.max(1) {
            return None;
        }
        match tried {
            Tried::NoAnswer => Some(self.backoff(tries)),
            Tried::Refused {
                status,
                retry_after,
            } => {
                if !transient(status) || retry_after.is_some_and(|a| a > self.max_retry_after) {
                    return None;
                }
                Some(retry_after.unwrap_or_else(|| self.backoff(tries)))
            }
        }
    }

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

/// The server's API over HTTP: its address, the retry policy and the session token, with
/// reqwest's blocking client ([`crate::HttpApi`]) or its async one ([`crate::AsyncHttpApi`]).
/// What both keep and show is here once; each sends in its own way.
#[derive(Clone)]
pub struct Api<C> {
    pub(crate) base: String,
    pub(crate) http: C,
    pub(crate) retry: RetryPolicy,
    pub(crate) token: Option<String>,
}

impl<C> std::fmt::Debug for Api<C> {
    // The session token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpApi")
            .field("base", &self.base)
            .field("logged_in", &self.token.is_some())
            .finish_non_exhaustive()
    }
}

impl<C> Api<C> {
    pub(crate) fn from_parts(base: String, http: C) -> Api<C> {
        Api {
            base,
            http,
            retry: RetryPolicy::default(),
            token: None,
        }
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Api<C> {
        self.retry = retry;
        self
    }

    /// Sends requests with this session token.
    pub fn set_token(&mut self, token: Option<String>) {
        self.token = token;
    }

    /// The session token, once logged in (an online table's connection sends it too).
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    pub fn base(&self) -> &str {
        &self.base
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_transient_failures_are_tried_again_within_the_policy() {
        let p = RetryPolicy {
            attempts: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(10),
        };
        let refused = |status, secs: Option<u64>| Tried::Refused {
            status,
            retry_after: secs.map(Duration::from_secs),
        };
        let first = p.again(0, Tried::NoAnswer).expect("no answer is retried");
        assert!((Duration::from_millis(100)..=Duration::from_millis(125)).contains(&first));
        assert_eq!(
            p.again(1, refused(503, Some(2))),
            Some(Duration::from_secs(2))
        );
        assert_eq!(p.again(2, Tried::NoAnswer), None, "three tries in all");
        assert_eq!(p.again(0, refused(400, None)), None, "a refusal is final");
        assert_eq!(
            p.again(0, refused(429, Some(60))),
            None,
            "too long a Retry-After"
        );
        let once = RetryPolicy { attempts: 1, ..p };
        assert_eq!(once.again(0, Tried::NoAnswer), None);
    }
}

//! TLS to PostgreSQL: `sslmode=require` makes the store's connections TLS, verified against
//! `sslrootcert`; a certificate that does not verify (another root's, or another host's) is
//! refused rather than used.

use crate::support;

use std::path::Path;

use support::PgSchema;
use tongcheng_server::store;

/// The certificate Debian's PostgreSQL serves by default (made for `localhost`).
const SNAKEOIL: &str = "/etc/ssl/certs/ssl-cert-snakeoil.pem";

/// Whether the test server speaks TLS with the snakeoil certificate.
fn server_has_tls(base: &str) -> bool {
    let Ok(mut c) = postgres::Client::connect(base, postgres::NoTls) else {
        return false;
    };
    let ssl: String = c.query_one("SHOW ssl", &[]).unwrap().get(0);
    let cert: String = c.query_one("SHOW ssl_cert_file", &[]).unwrap().get(0);
    ssl == "on" && cert == SNAKEOIL && Path::new(SNAKEOIL).exists()
}

#[test]
fn sslmode_require_connects_over_verified_tls() {
    let Some(schema) = PgSchema::create() else {
        return;
    };
    let base = std::env::var("TONGCHENG_TEST_PG").unwrap_or_else(|_| support::PG_BASE.into());
    if !server_has_tls(&base) || !schema.url.contains("@127.0.0.1:") {
        eprintln!("SKIPPED: the PostgreSQL at {base} does not serve {SNAKEOIL}");
        return;
    }
    // The certificate names localhost: the URL must too.
    let app = format!("tongcheng-tls-{}", std::process::id());
    let url = format!(
        "{}&application_name={app}&sslmode=require",
        schema.url.replace("@127.0.0.1:", "@localhost:")
    );
    let trusted = format!("{url}&sslrootcert={SNAKEOIL}");

    let s = store::open(&trusted).unwrap();
    s.put_challenge("n", 100, 0).unwrap();
    assert!(s.take_challenge("n", 0).unwrap());
    // The pool's idle connection is a TLS one.
    let mut c = postgres::Client::connect(&base, postgres::NoTls).unwrap();
    let tls: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
             WHERE a.application_name = $1 AND s.ssl",
            &[&app],
        )
        .unwrap()
        .get(0);
    assert!(tls >= 1, "no TLS connection from the store");
    drop(s);

    // A root that did not sign the server's certificate. (Without `sslrootcert` the system's
    // roots are used; Debian's certificate directory links the snakeoil one in, so that case
    // is not tried here.)
    let other_root = "/usr/share/ca-certificates/mozilla/ISRG_Root_X1.crt";
    if Path::new(other_root).exists() {
        refused(&format!("{url}&sslrootcert={other_root}"));
    }
    // Trusted, but made for another host name.
    refused(&trusted.replace("@localhost:", "@127.0.0.1:"));
}

fn refused(url: &str) {
    match store::open(url) {
        Ok(_) => panic!("opened {url}"),
        Err(e) => assert!(e.to_string().contains("certificate"), "{e}"),
    }
}

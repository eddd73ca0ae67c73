//! The PostgreSQL backend, for several server nodes sharing one database.
//!
//! It uses the synchronous `postgres` client on the blocking pool, like SQLite, so both
//! backends share one synchronous trait; an r2d2 pool keeps up to [`MAX_OPEN`] connections,
//! each with its prepared statements. Uploads for one account lock the account's row first
//! (`SELECT ... FOR UPDATE`): two devices uploading at once then take sequence numbers in
//! commit order, so a pull's cursor never skips a record that commits late.
//!
//! TLS: `sslmode=require` in the URL turns it on (rustls). The server's certificate must
//! then verify against the system's trusted roots, or, with `sslrootcert=PATH` (libpq's
//! parameter), against the CA certificates in that PEM file; the host name in the URL must
//! match the certificate. Without `sslmode`, and with `disable` or `prefer`, the connection
//! is plain: `prefer` never turns into a certificate error.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::BytesMut;
use postgres::config::SslMode;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use postgres::{Client, Config, NoTls, Statement};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::db::{Arg, Cell, Db, Dialect};
use super::{Result, SqlStore, StoreError, migrations};

/// Connections open at once, at most (callers beyond it wait for one to come back): the
/// blocking pool has hundreds of threads, PostgreSQL allows ~100 connections in all.
pub const MAX_OPEN: u32 = 16;

/// The store on PostgreSQL.
pub type PgStore = SqlStore<Manager>;

impl SqlStore<Manager> {
    /// Connects to `url` (a `postgres://` URL; `?options=-c%20search_path%3D...` picks a
    /// schema, `sslmode=require` asks for TLS: see the module doc) and migrates it.
    pub fn open(url: &str) -> Result<PgStore> {
        let manager = Manager::new(url)?;
        // The schema is brought up to date once, here, on a first connection of our own (a
        // bad URL fails now with its own error rather than as the pool's timeout). The
        // pool's connections are not checked again: a node of this build keeps serving
        // while a newer one migrates (steps only add).
        migrations::run(&mut r2d2::ManageConnection::connect(&manager)?)?;
        SqlStore::new(
            manager,
            r2d2::Pool::builder()
                .max_size(MAX_OPEN)
                .min_idle(Some(0))
                .test_on_check_out(false),
        )
    }
}

/// Opens PostgreSQL connections for the pool, plain or over TLS.
pub struct Manager {
    config: Config,
    tls: Option<MakeRustlsConnect>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("config", &self.config)
            .field("tls", &self.tls.is_some())
            .finish()
    }
}

impl Manager {
    fn new(url: &str) -> Result<Manager> {
        // The client refuses options it does not know: the root file is ours to read.
        let (url, root_file) = take_param(url, "sslrootcert")?;
        let config: Config = url
            .parse()
            .map_err(|e| StoreError::Open(format!("bad PostgreSQL URL: {}", error_text(&e))))?;
        let tls = match config.get_ssl_mode() {
            SslMode::Require => Some(tls_connector(root_file.as_deref())?),
            _ if root_file.is_some() => {
                return Err(StoreError::Open(
                    "sslrootcert is only read with sslmode=require".into(),
                ));
            }
            _ => None,
        };
        Ok(Manager { config, tls })
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = StoreError;

    fn connect(&self) -> Result<Conn> {
        let client = match &self.tls {
            Some(tls) => self.config.connect(tls.clone()),
            None => self.config.connect(NoTls),
        }
        .map_err(|e| StoreError::Open(error_text(&e)))?;
        Ok(Conn {
            client: Some(client),
            statements: HashMap::new(),
            broken: false,
        })
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<()> {
        conn.batch("")
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.broken || conn.client.as_ref().is_none_or(Client::is_closed)
    }
}

/// A TLS connector that verifies the server against `root_file`'s certificates, or the
/// system's trusted roots.
fn tls_connector(root_file: Option<&str>) -> Result<MakeRustlsConnect> {
    let mut roots = rustls::RootCertStore::empty();
    match root_file {
        Some(path) => {
            let bad =
                |e: &dyn std::fmt::Display| StoreError::Open(format!("sslrootcert {path}: {e}"));
            for cert in CertificateDer::pem_file_iter(path).map_err(|e| bad(&e))? {
                roots.add(cert.map_err(|e| bad(&e))?).map_err(|e| bad(&e))?;
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            roots.add_parsable_certificates(found.certs);
        }
    }
    if roots.is_empty() {
        return Err(StoreError::Open(format!(
            "sslmode=require: no trusted root certificate in {}",
            root_file.unwrap_or("the system's store (give one with sslrootcert=PATH)")
        )));
    }
    // ring: the provider rustls already brings in for the server's other clients.
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| StoreError::Open(format!("TLS: {e}")))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

/// Takes `key=value` out of a URL's query string: the URL without it, and the value
/// (percent-decoded).
fn take_param(url: &str, key: &str) -> Result<(String, Option<String>)> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), None));
    };
    let mut value = None;
    let mut rest = Vec::new();
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some((k, v)) if k == key => {
                let v = percent_encoding::percent_decode_str(v)
                    .decode_utf8()
                    .map_err(|e| StoreError::Open(format!("{key}: {e}")))?;
                value = Some(v.into_owned());
            }
            _ => rest.push(pair),
        }
    }
    let url = if rest.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", rest.join("&"))
    };
    Ok((url, value))
}

/// A PostgreSQL connection with its prepared statements.
pub struct Conn {
    /// Always `Some` until dropped.
    client: Option<Client>,
    statements: HashMap<String, Statement>,
    broken: bool,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("statements", &self.statements.len())
            .field("broken", &self.broken)
            .finish_non_exhaustive()
    }
}

impl Conn {
    fn client(&mut self) -> Result<&mut Client> {
        self.client
            .as_mut()
            .ok_or_else(|| StoreError::Backend("connection closed".into()))
    }

    fn statement(&mut self, sql: &str) -> Result<Statement> {
        if let Some(st) = self.statements.get(sql) {
            return Ok(st.clone());
        }
        let st = self.client()?.prepare(sql)?;
        self.statements.insert(sql.to_owned(), st.clone());
        Ok(st)
    }
}

fn params<'a>(args: &'a [Arg<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    args.iter().map(|a| a as &(dyn ToSql + Sync)).collect()
}

impl Db for Conn {
    const DIALECT: Dialect = Dialect::Postgres;

    fn execute(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<u64> {
        let st = self.statement(sql)?;
        Ok(self.client()?.execute(&st, &params(args))?)
    }

    fn query(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<Vec<Cell>>> {
        let st = self.statement(sql)?;
        let rows = self.client()?.query(&st, &params(args))?;
        rows.iter()
            .map(|row| (0..row.len()).map(|i| cell(row, i)).collect())
            .collect()
    }

    fn batch(&mut self, sql: &str) -> Result<()> {
        Ok(self.client()?.batch_execute(sql)?)
    }

    fn set_broken(&mut self) {
        self.broken = true;
    }
}

impl Drop for Conn {
    /// The synchronous client closes its connection by blocking on its own runtime, which
    /// panics on an async worker thread (where the pool, and so its idle connections, may
    /// go with the last reference to the store): there it is closed on a plain thread.
    fn drop(&mut self) {
        self.statements.clear();
        if let Some(client) = self.client.take()
            && tokio::runtime::Handle::try_current().is_ok()
        {
            let _ = std::thread::spawn(move || drop(client)).join();
        }
    }
}

/// Column `i` of `row`, by its PostgreSQL type.
fn cell(row: &postgres::Row, i: usize) -> Result<Cell> {
    let ty = row.columns()[i].type_();
    let cell = if *ty == Type::INT8 {
        row.try_get::<_, Option<i64>>(i)?.map(Cell::Int)
    } else if *ty == Type::INT4 {
        row.try_get::<_, Option<i32>>(i)?
            .map(|v| Cell::Int(v.into()))
    } else if *ty == Type::INT2 {
        row.try_get::<_, Option<i16>>(i)?
            .map(|v| Cell::Int(v.into()))
    } else if *ty == Type::FLOAT8 {
        row.try_get::<_, Option<f64>>(i)?.map(Cell::Real)
    } else if *ty == Type::BOOL {
        row.try_get::<_, Option<bool>>(i)?.map(Cell::Bool)
    } else if <String as postgres::types::FromSql>::accepts(ty) {
        row.try_get::<_, Option<String>>(i)?.map(Cell::Text)
    } else {
        return Err(StoreError::Corrupt(format!(
            "column {} is of type {ty}, which the store does not read",
            row.columns()[i].name()
        )));
    };
    Ok(cell.unwrap_or(Cell::Null))
}

impl ToSql for Arg<'_> {
    /// Integers bind to the parameter's width, checked (a seat into `SMALLINT`).
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match *self {
            Arg::Null => Ok(IsNull::Yes),
            Arg::Int(v) if *ty == Type::INT8 => v.to_sql(ty, out),
            Arg::Int(v) if *ty == Type::INT4 => i32::try_from(v)?.to_sql(ty, out),
            Arg::Int(v) if *ty == Type::INT2 => i16::try_from(v)?.to_sql(ty, out),
            Arg::Real(v) if *ty == Type::FLOAT8 => v.to_sql(ty, out),
            Arg::Bool(v) if *ty == Type::BOOL => v.to_sql(ty, out),
            Arg::Text(v) if <&str as ToSql>::accepts(ty) => v.to_sql(ty, out),
            a => Err(format!("{a:?} does not bind to a parameter of type {ty}").into()),
        }
    }

    /// Any type: `to_sql` says which values fit.
    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// The server's message for an error it sent (the plain Display is just "db error"), else
/// the error with its causes ("error performing TLS handshake: invalid peer certificate: ...").
fn error_text(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{}: {}", db.code().code(), db.message());
    }
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        use postgres::error::SqlState;
        let text = error_text(&e);
        match e.code() {
            Some(c)
                if *c == SqlState::UNIQUE_VIOLATION
                    || *c == SqlState::T_R_SERIALIZATION_FAILURE =>
            {
                StoreError::Conflict(text)
            }
            _ => StoreError::Backend(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_file_is_taken_out_of_the_url() {
        let (url, root) = take_param(
            "postgres://u@db/test?sslmode=require&sslrootcert=%2Fetc%2Fca.pem&options=x",
            "sslrootcert",
        )
        .unwrap();
        assert_eq!(url, "postgres://u@db/test?sslmode=require&options=x");
        assert_eq!(root.as_deref(), Some("/etc/ca.pem"));
        let (url, root) = take_param("postgres://u@db/test", "sslrootcert").unwrap();
        assert_eq!((url.as_str(), root), ("postgres://u@db/test", None));
        let (url, _) = take_param("postgres://u@db/test?sslrootcert=a.pem", "sslrootcert").unwrap();
        assert_eq!(url, "postgres://u@db/test");
    }

    #[test]
    fn tls_settings_are_checked_when_opening() {
        let e = Manager::new("postgres://u@db/test?sslrootcert=/x.pem").unwrap_err();
        assert!(e.to_string().contains("sslmode=require"), "{e}");
        let e = Manager::new("postgres://u@db/test?sslmode=require&sslrootcert=/nonexistent.pem")
            .unwrap_err();
        assert!(e.to_string().contains("/nonexistent.pem"), "{e}");
        assert!(
            Manager::new("postgres://u@db/test?sslmode=prefer")
                .unwrap()
                .tls
                .is_none()
        );
        let e = Manager::new("postgres://u@db/test?sslmode=bogus").unwrap_err();
        assert!(e.to_string().contains("sslmode"), "{e}");
    }
}

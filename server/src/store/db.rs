//! What the store needs from a database connection, written once for both engines: run a
//! statement, read its rows as typed tuples, and wrap work in a transaction. Statements are
//! written in PostgreSQL's dialect (`$1` placeholders, `FOR UPDATE`); the SQLite connection
//! translates them (see `sqlite::to_sqlite`). Where the engines truly differ beyond that
//! (how a writing transaction starts, column types, the lock several nodes take to migrate),
//! [`Dialect`] says so in one place.

use super::{Result, StoreError};

/// The engine a connection speaks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// The name [`super::Store::backend`] reports.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
        }
    }

    /// How a transaction starts. SQLite's `IMMEDIATE` takes the one write lock up front, so
    /// the transaction never fails half-way to upgrade a read lock, and every transaction is
    /// serialized: that is SQLite's stand-in for PostgreSQL's row locks (`FOR UPDATE`).
    pub fn begin(self) -> &'static str {
        match self {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
        }
    }

    /// Taken inside a transaction that rates a ranked match or recomputes ratings: the two
    /// read ratings and write them back, so on several nodes they take turns (SQLite's
    /// writing transactions already do).
    pub fn ratings_lock(self) -> Option<&'static str> {
        match self {
            Dialect::Sqlite => None,
            Dialect::Postgres => Some("SELECT pg_advisory_xact_lock(7242012)"),
        }
    }

    /// Taken inside the migration's transaction: several nodes may start at once, one
    /// migrates and the others wait and find it done. SQLite's writing transaction already
    /// excludes every other writer.
    pub fn schema_lock(self) -> Option<&'static str> {
        match self {
            Dialect::Sqlite => None,
            Dialect::Postgres => Some("SELECT pg_advisory_xact_lock(7242011)"),
        }
    }
}

/// A statement's argument. PostgreSQL binds integers to the width of the parameter's column
/// (`SMALLINT`, `INTEGER`, `BIGINT`); SQLite stores booleans as 0 and 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<'a> {
    Null,
    Int(i64),
    Real(f64),
    Bool(bool),
    Text(&'a str),
}

impl From<i64> for Arg<'_> {
    fn from(v: i64) -> Self {
        Arg::Int(v)
    }
}

impl From<&i64> for Arg<'_> {
    fn from(v: &i64) -> Self {
        Arg::Int(*v)
    }
}

impl From<u8> for Arg<'_> {
    fn from(v: u8) -> Self {
        Arg::Int(i64::from(v))
    }
}

impl From<u32> for Arg<'_> {
    fn from(v: u32) -> Self {
        Arg::Int(i64::from(v))
    }
}

impl From<f64> for Arg<'_> {
    fn from(v: f64) -> Self {
        Arg::Real(v)
    }
}

impl From<bool> for Arg<'_> {
    fn from(v: bool) -> Self {
        Arg::Bool(v)
    }
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(v: &'a str) -> Self {
        Arg::Text(v)
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(v: &'a String) -> Self {
        Arg::Text(v)
    }
}

impl<'a, T: Into<Arg<'a>>> From<Option<T>> for Arg<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Arg::Null, Into::into)
    }
}

/// A statement's arguments: `args![a, b]` is `&[Arg::from(a), Arg::from(b)]`.
macro_rules! args {
    ($($a:expr),* $(,)?) => {
        &[$($crate::store::db::Arg::from($a)),*] as &[$crate::store::db::Arg<'_>]
    };
}
pub(crate) use args;

/// One value of a result row, as either engine returns it.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Bool(bool),
    Text(String),
}

/// A value read out of a [`Cell`]; the error says what was found instead.
pub trait FromCell: Sized {
    fn from_cell(cell: Cell) -> std::result::Result<Self, String>;
}

fn unexpected<T>(cell: Cell, wanted: &str) -> std::result::Result<T, String> {
    Err(format!("expected {wanted}, found {cell:?}"))
}

impl FromCell for i64 {
    fn from_cell(cell: Cell) -> std::result::Result<Self, String> {
        match cell {
            Cell::Int(v) => Ok(v),
            c => unexpected(c, "an integer"),
        }
    }
}

impl FromCell for u8 {
    fn from_cell(cell: Cell) -> std::result::Result<Self, String> {
        let v = i64::from_cell(cell)?;
        u8::try_from(v).map_err(|_| format!("{v} is out of range 0-255"))
    }
}

impl FromCell for f64 {
    fn from_cell(cell: Cell) -> std::result::Result<Self, String> {
        match cell {
            Cell::Real(v) => Ok(v),
            // SQLite may hand back a whole REAL as an integer.
            Cell::Int(v) => Ok(v as f64),
            c => unexpected(c, "a number"),
        }
    }
}

impl FromCell for bool {
    fn from_cell(cell: Cell) -> std::result::Result<Self, String> {
        match cell {
            Cell::Bool(v) => Ok(v),
            Cell::Int(0) => Ok(false),
            Cell::Int(1) => Ok(true),
            c => unexpected(c, "a boolean"),
        }
    }
}

impl FromCell for String {
    fn from_cell(cell: Cell) -> std::result::Result<Self, String> {
        match cell {
            Cell::Text(v) => Ok(v),
            c => unexpected(c, "text"),
        }
    }
}

impl<T: FromCell> FromCell for Option<T> {
    fn from_cell(cell: Cell) -> std::result::Result<Self, String> {
        match cell {
            Cell::Null => Ok(None),
            c => T::from_cell(c).map(Some),
        }
    }
}

/// A result row read as a tuple of typed values, one per column.
pub trait FromRow: Sized {
    fn from_row(row: Vec<Cell>) -> Result<Self>;
}

macro_rules! tuple_from_row {
    ($n:literal; $($t:ident),+) => {
        impl<$($t: FromCell),+> FromRow for ($($t,)+) {
            fn from_row(row: Vec<Cell>) -> Result<Self> {
                if row.len() != $n {
                    return Err(StoreError::Corrupt(format!(
                        "expected {} columns, found {}", $n, row.len()
                    )));
                }
                let mut cells = row.into_iter().enumerate();
                Ok(($({
                    let (i, cell) = cells.next().unwrap_or((0, Cell::Null));
                    $t::from_cell(cell)
                        .map_err(|e| StoreError::Corrupt(format!("column {i}: {e}")))?
                },)+))
            }
        }
    };
}

tuple_from_row!(1; A);
tuple_from_row!(2; A, B);
tuple_from_row!(3; A, B, C);
tuple_from_row!(4; A, B, C, D);
tuple_from_row!(5; A, B, C, D, E);
tuple_from_row!(6; A, B, C, D, E, F);
tuple_from_row!(7; A, B, C, D, E, F, G);
tuple_from_row!(8; A, B, C, D, E, F, G, H);
tuple_from_row!(9; A, B, C, D, E, F, G, H, I);
tuple_from_row!(10; A, B, C, D, E, F, G, H, I, J);
tuple_from_row!(11; A, B, C, D, E, F, G, H, I, J, K);
tuple_from_row!(12; A, B, C, D, E, F, G, H, I, J, K, L);

/// A connection of either engine.
pub trait Db: Send + 'static {
    const DIALECT: Dialect;

    /// Runs one statement; how many rows it changed.
    fn execute(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<u64>;
    /// Runs one statement; the rows it returned.
    fn query(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<Vec<Cell>>>;
    /// Runs statements that take no arguments (schema steps, transaction control).
    fn batch(&mut self, sql: &str) -> Result<()>;
    /// The connection is in an unknown state (a rollback failed): the pool drops it.
    fn set_broken(&mut self);

    /// Every row, typed.
    fn rows<T: FromRow>(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<T>> {
        self.query(sql, args)?
            .into_iter()
            .map(T::from_row)
            .collect()
    }

    /// The first row, if any, typed.
    fn row<T: FromRow>(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Option<T>> {
        self.query(sql, args)?
            .into_iter()
            .next()
            .map(T::from_row)
            .transpose()
    }

    /// The one value of a statement that always returns one row (`count(*)`).
    fn value<T: FromCell>(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<T> {
        match self.row::<(T,)>(sql, args)? {
            Some((v,)) => Ok(v),
            None => Err(StoreError::Backend(format!("no row from: {sql}"))),
        }
    }
}

/// Runs `f` in a transaction: committed when it returns `Ok`, rolled back when it returns an
/// error, when the commit fails, or when it panics.
pub fn transaction<C: Db, T>(c: &mut C, f: impl FnOnce(&mut C) -> Result<T>) -> Result<T> {
    c.batch(C::DIALECT.begin())?;
    let mut open = Open { c, done: false };
    let out = f(&mut *open.c)?;
    open.c.batch("COMMIT")?;
    open.done = true;
    Ok(out)
}

/// A transaction under way: rolled back on drop unless committed.
struct Open<'a, C: Db> {
    c: &'a mut C,
    done: bool,
}

impl<C: Db> Drop for Open<'_, C> {
    fn drop(&mut self) {
        if !self.done && self.c.batch("ROLLBACK").is_err() {
            self.c.set_broken();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_as_typed_tuples() {
        let row = vec![
            Cell::Int(7),
            Cell::Text("x".into()),
            Cell::Null,
            Cell::Int(1),
            Cell::Int(3),
        ];
        let r: (i64, String, Option<i64>, bool, u8) = FromRow::from_row(row).unwrap();
        assert_eq!(r, (7, "x".into(), None, true, 3));
    }

    #[test]
    fn a_wrong_value_is_corrupt_data_not_a_panic() {
        for (row, wanted) in [
            (vec![Cell::Int(300)], "column 0: 300 is out of range"),
            (
                vec![Cell::Text("7".into())],
                "column 0: expected an integer",
            ),
            (vec![Cell::Null], "column 0: expected an integer"),
            (
                vec![Cell::Int(1), Cell::Int(2)],
                "expected 1 columns, found 2",
            ),
        ] {
            let e = <(u8,)>::from_row(row).unwrap_err();
            assert!(
                matches!(&e, StoreError::Corrupt(m) if m.starts_with(wanted)),
                "{e}"
            );
        }
        let e = <(bool,)>::from_row(vec![Cell::Int(2)]).unwrap_err();
        assert!(matches!(e, StoreError::Corrupt(_)), "{e}");
    }

    #[test]
    fn arguments_convert_from_the_store_types() {
        let ip: Option<&str> = None;
        let seat: Option<i64> = Some(4);
        let name = String::from("n");
        assert_eq!(
            args![1i64, 2u8, 3u32, 0.5, true, "a", &name, ip, seat],
            [
                Arg::Int(1),
                Arg::Int(2),
                Arg::Int(3),
                Arg::Real(0.5),
                Arg::Bool(true),
                Arg::Text("a"),
                Arg::Text("n"),
                Arg::Null,
                Arg::Int(4)
            ]
        );
    }
}

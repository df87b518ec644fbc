//! Reading rows: the one way a `SELECT`'s rows become values. A type read from a row
//! implements [`FromRow`] once, next to its table; [`all`], [`optional`], [`one`] and
//! [`for_each`] run a (cached) statement and decode every row through it ([`exists`] only
//! asks whether there is one), so a column that does not decode is a
//! [`StoreError`](crate::error::StoreError) naming what was wrong, never a panic or a silent
//! default.

use rusqlite::types::FromSql;
use rusqlite::{Connection, Params, Row};

use crate::error::{Result, StoreError};

/// A value read from one row of a `SELECT`, its columns in the order the query names them.
pub(crate) trait FromRow: Sized {
    fn from_row(row: &Row<'_>) -> Result<Self>;
}

macro_rules! column_rows {
    ($($t:ty),+) => {$(
        /// One column.
        impl FromRow for $t {
            fn from_row(row: &Row<'_>) -> Result<Self> {
                Ok(row.get(0)?)
            }
        }

        /// One column that may be NULL.
        impl FromRow for Option<$t> {
            fn from_row(row: &Row<'_>) -> Result<Self> {
                Ok(row.get(0)?)
            }
        }
    )+};
}

column_rows!(String, i64, bool, f64, Vec<u8>);

macro_rules! tuple_rows {
    ($( ($($t:ident $i:tt),+) )+) => {$(
        impl<$($t: FromSql),+> FromRow for ($($t,)+) {
            fn from_row(row: &Row<'_>) -> Result<Self> {
                Ok(($(row.get::<_, $t>($i)?,)+))
            }
        }
    )+};
}

tuple_rows! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
}

/// Every row of `sql`, decoded.
pub(crate) fn all<T: FromRow>(conn: &Connection, sql: &str, params: impl Params) -> Result<Vec<T>> {
    let mut statement = conn.prepare_cached(sql)?;
    let mut rows = statement.query(params)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(T::from_row(row)?);
    }
    Ok(out)
}

/// The first row of `sql`, decoded; None when there is none.
pub(crate) fn optional<T: FromRow>(
    conn: &Connection,
    sql: &str,
    params: impl Params,
) -> Result<Option<T>> {
    let mut statement = conn.prepare_cached(sql)?;
    let mut rows = statement.query(params)?;
    rows.next()?.map(T::from_row).transpose()
}

/// The first row of `sql`, decoded; an error when there is none (a query that always has one:
/// an aggregate, a `PRAGMA`).
pub(crate) fn one<T: FromRow>(conn: &Connection, sql: &str, params: impl Params) -> Result<T> {
    optional(conn, sql, params)?.ok_or(StoreError::Sqlite(rusqlite::Error::QueryReturnedNoRows))
}

/// Each row of `sql`, decoded and handed to `f` as it is read: a scan too large to hold at
/// once (`f` may write through the same connection meanwhile).
pub(crate) fn for_each<T: FromRow>(
    conn: &Connection,
    sql: &str,
    params: impl Params,
    mut f: impl FnMut(T) -> Result<()>,
) -> Result<()> {
    let mut statement = conn.prepare_cached(sql)?;
    let mut rows = statement.query(params)?;
    while let Some(row) = rows.next()? {
        f(T::from_row(row)?)?;
    }
    Ok(())
}

/// Whether `sql` has a row.
pub(crate) fn exists(conn: &Connection, sql: &str, params: impl Params) -> Result<bool> {
    let mut statement = conn.prepare_cached(sql)?;
    let mut rows = statement.query(params)?;
    Ok(rows.next()?.is_some())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn table() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER, name TEXT);
             INSERT INTO t VALUES (1, 'a'), (2, NULL);",
        )
        .unwrap();
        conn
    }

    #[test]
    fn rows_are_read_in_order_as_columns_or_tuples() {
        let conn = table();
        let all: Vec<(i64, Option<String>)> =
            all(&conn, "SELECT id, name FROM t ORDER BY id", []).unwrap();
        assert_eq!(all, [(1, Some("a".to_owned())), (2, None)]);
        let names: Vec<Option<String>> = all_names(&conn);
        assert_eq!(names, [Some("a".to_owned()), None]);
        let mut seen = Vec::new();
        for_each(&conn, "SELECT id FROM t ORDER BY id", [], |id: i64| {
            seen.push(id);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [1, 2]);
    }

    fn all_names(conn: &Connection) -> Vec<Option<String>> {
        all(conn, "SELECT name FROM t ORDER BY id", []).unwrap()
    }

    #[test]
    fn a_missing_row_is_none_for_optional_and_an_error_for_one() {
        let conn = table();
        let none: Option<String> = optional(&conn, "SELECT name FROM t WHERE id = 9", []).unwrap();
        assert_eq!(none, None);
        assert!(one::<String>(&conn, "SELECT name FROM t WHERE id = 9", []).is_err());
        assert!(exists(&conn, "SELECT 1 FROM t WHERE id = 1", []).unwrap());
        assert!(!exists(&conn, "SELECT 1 FROM t WHERE id = 9", []).unwrap());
    }

    #[test]
    fn a_column_of_the_wrong_type_is_an_error_not_a_default() {
        let conn = table();
        assert!(all::<String>(&conn, "SELECT name FROM t ORDER BY id", []).is_err());
    }
}

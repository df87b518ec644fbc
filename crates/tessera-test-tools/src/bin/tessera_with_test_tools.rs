//! `tessera-with-test-tools`: the whole `tessera` command line, with the testkit's tools added to
//! what `tessera serve` offers (see the crate's documentation). For the suites only.

use std::process::ExitCode;

fn main() -> ExitCode {
    tessera_cli::main_with(vec![tessera_test_tools::plugin()])
}

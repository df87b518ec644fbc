//! A throwaway certificate authority and a server certificate it signed for 127.0.0.1 and
//! localhost, made with the `openssl` command line (Debian package `openssl`), for tests of
//! trusting extra CA certificates.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The files, in a temporary folder removed on drop.
#[derive(Debug)]
pub struct Pki {
    _dir: tempfile::TempDir,
    pub ca_pem: PathBuf,
    pub server_pem: PathBuf,
    pub server_key: PathBuf,
}

fn openssl(dir: &Path, args: &[&str]) -> io::Result<()> {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .map_err(|err| {
            io::Error::new(
                err.kind(),
                format!("the `openssl` command (Debian package openssl) is needed: {err}"),
            )
        })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        )))
    }
}

const EC: [&str; 4] = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];

impl Pki {
    /// A new CA (`CN=Tessera Test CA`) and a server certificate for 127.0.0.1 and localhost.
    pub fn generate() -> io::Result<Self> {
        let dir = tempfile::tempdir()?;
        let d = dir.path();
        let mut ca = vec!["req", "-x509"];
        ca.extend(EC);
        ca.extend([
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=Tessera Test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ]);
        openssl(d, &ca)?;
        let mut csr = vec!["req"];
        csr.extend(EC);
        csr.extend([
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ]);
        openssl(d, &csr)?;
        std::fs::write(
            d.join("server.ext"),
            "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n\
             extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
        )?;
        openssl(
            d,
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "server.pem",
                "-days",
                "2",
                "-extfile",
                "server.ext",
            ],
        )?;
        Ok(Self {
            ca_pem: d.join("ca.pem"),
            server_pem: d.join("server.pem"),
            server_key: d.join("server.key"),
            _dir: dir,
        })
    }
}

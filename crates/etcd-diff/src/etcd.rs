//! A private etcd server for one test, and a client for its v3 JSON gateway.
//!
//! [`Etcd::start`] launches Debian's `etcd` (3.4) on 127.0.0.1 with two free
//! ports and a data directory in a fresh temporary folder, and waits (bounded)
//! until it answers. Dropping the handle kills the process and removes the
//! folder; that also happens when the test panics, because unwinding drops it.
//! If the test process dies without unwinding (SIGKILL, abort), the kernel
//! kills etcd too: it is started with `PR_SET_PDEATHSIG`.

use std::fs::File;
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use serde_json::{json, Value};

/// How long etcd may take to answer after it is launched.
const STARTUP_WAIT: Duration = Duration::from_secs(20);
/// How long one gateway request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the etcd binary is: `$ETCD_BIN`, else Debian's `/usr/bin/etcd`.
pub fn etcd_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("ETCD_BIN") {
        let path = PathBuf::from(path);
        return if path.exists() {
            Ok(path)
        } else {
            Err(format!("ETCD_BIN points to {}, which does not exist", path.display()))
        };
    }
    let debian = PathBuf::from("/usr/bin/etcd");
    if debian.exists() {
        return Ok(debian);
    }
    Err("no etcd at /usr/bin/etcd: install Debian's etcd-server (`apt-get install -y etcd-server`, \
         which `cargo xtask test` does for you as root) or point ETCD_BIN at an etcd 3.4 binary"
        .into())
}

/// An answer etcd gave instead of a result (HTTP status ≥ 400 from the gateway).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

/// A running etcd, killed when dropped.
pub struct Etcd {
    child: Child,
    client_url: String,
    agent: ureq::Agent,
    log_path: PathBuf,
    // Dropped after the process is killed (see `Drop`), removing the data.
    _dir: tempfile::TempDir,
}

impl Etcd {
    /// Starts a single-member etcd on free local ports. Tries up to three
    /// times if another process takes a port between picking and binding it.
    pub fn start() -> Result<Etcd, String> {
        let binary = etcd_binary()?;
        let mut attempt = 1;
        loop {
            match Etcd::try_start(&binary) {
                Ok(etcd) => return Ok(etcd),
                Err(error) if attempt < 3 && error.contains("address already in use") => attempt += 1,
                Err(error) => return Err(format!("could not start etcd ({}): {error}", binary.display())),
            }
        }
    }

    fn try_start(binary: &Path) -> Result<Etcd, String> {
        let dir = tempfile::Builder::new()
            .prefix("etcd-diff-")
            .tempdir()
            .map_err(|error| format!("cannot create a temporary folder: {error}"))?;
        let client_port = free_port()?;
        let peer_port = free_port()?;
        let client_url = format!("http://127.0.0.1:{client_port}");
        let peer_url = format!("http://127.0.0.1:{peer_port}");
        let log_path = dir.path().join("etcd.log");
        let log = File::create(&log_path).map_err(|error| format!("cannot create {}: {error}", log_path.display()))?;
        let log_err = log.try_clone().map_err(|error| format!("cannot share the log file: {error}"))?;
        let mut command = Command::new(binary);
        command
            .arg("--name=diff")
            .arg(format!("--data-dir={}", dir.path().join("data").display()))
            .arg(format!("--listen-client-urls={client_url}"))
            .arg(format!("--advertise-client-urls={client_url}"))
            .arg(format!("--listen-peer-urls={peer_url}"))
            .arg(format!("--initial-advertise-peer-urls={peer_url}"))
            .arg(format!("--initial-cluster=diff={peer_url}"))
            .arg("--initial-cluster-state=new")
            .arg("--logger=zap")
            .arg("--log-level=warn")
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err);
        // SAFETY: prctl is async-signal-safe and touches no memory of ours.
        unsafe {
            command.pre_exec(|| {
                // Dies with the thread that started it, even on SIGKILL of the tests.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = command.spawn().map_err(|error| format!("cannot run {}: {error}", binary.display()))?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(REQUEST_TIMEOUT))
            .build()
            .into();
        let mut etcd = Etcd { child, client_url, agent, log_path, _dir: dir };
        etcd.wait_ready()?;
        Ok(etcd)
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("etcd exited during startup ({status}); its log ends with:\n{}", self.log_tail()));
            }
            if let Ok(answer) = self.post("/v3/kv/range", &json!({ "key": b64("/etcd-diff/ready") })) {
                if answer.is_ok() {
                    return Ok(());
                }
            }
            if started.elapsed() > STARTUP_WAIT {
                return Err(format!(
                    "etcd did not answer on {} within {} s; its log ends with:\n{}",
                    self.client_url,
                    STARTUP_WAIT.as_secs(),
                    self.log_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// The last lines etcd logged, for error messages.
    pub fn log_tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut file) = File::open(&self.log_path) {
            let _ = file.read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    pub fn client_url(&self) -> &str {
        &self.client_url
    }

    /// One gateway call. The outer error is a transport failure (etcd gone,
    /// not JSON); the inner one is etcd refusing the request.
    fn post(&self, path: &str, body: &Value) -> Result<Result<Value, Refusal>, String> {
        let url = format!("{}{path}", self.client_url);
        let mut response = self
            .agent
            .post(&url)
            .header("content-type", "application/json")
            .send(body.to_string())
            .map_err(|error| format!("POST {url}: {error}"))?;
        let status = response.status().as_u16();
        let text =
            response.body_mut().read_to_string().map_err(|error| format!("POST {url}: reading the body: {error}"))?;
        // Streaming endpoints (keepalive) answer one JSON object per line.
        let first = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("{}");
        let value: Value =
            serde_json::from_str(first).map_err(|error| format!("POST {url}: answer is not JSON ({error}): {text}"))?;
        if status >= 400 {
            let message = value["error"].as_str().or(value["message"].as_str()).unwrap_or(&text).to_string();
            return Ok(Err(Refusal { status, message }));
        }
        Ok(Ok(value))
    }

    /// A gateway call; a transport failure panics with etcd's log, since no
    /// comparison can go on without the server.
    pub fn call(&self, path: &str, body: Value) -> Result<Value, Refusal> {
        match self.post(path, &body) {
            Ok(answer) => answer,
            Err(error) => {
                panic!("etcd at {} stopped answering: {error}\netcd log:\n{}", self.client_url, self.log_tail())
            }
        }
    }

    /// The server's current revision.
    pub fn revision(&self) -> i64 {
        let answer =
            self.call("/v3/kv/range", json!({ "key": b64("/etcd-diff/revision") })).expect("range never fails");
        int(&answer["header"]["revision"])
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|error| format!("cannot find a free port: {error}"))?;
    listener.local_addr().map(|address| address.port()).map_err(|error| format!("cannot read a port: {error}"))
}

/// Base64, as the gateway wants bytes.
pub fn b64(text: &str) -> String {
    B64.encode(text.as_bytes())
}

/// Decodes a base64 field; a missing field is the empty string (the gateway
/// omits empty values).
pub fn unb64(value: &Value) -> String {
    let Some(text) = value.as_str() else { return String::new() };
    let bytes = B64.decode(text).unwrap_or_else(|error| panic!("etcd sent invalid base64 {text:?}: {error}"));
    String::from_utf8(bytes).unwrap_or_else(|error| panic!("etcd sent a non-UTF-8 value: {error}"))
}

/// An int64 field: the gateway sends them as strings and omits zeros.
pub fn int(value: &Value) -> i64 {
    match value {
        Value::Null => 0,
        Value::String(text) => text.parse().unwrap_or_else(|_| panic!("etcd sent a non-integer {text:?}")),
        Value::Number(number) => number.as_i64().unwrap_or_else(|| panic!("etcd sent a non-integer {number}")),
        other => panic!("etcd sent {other} where an integer belongs"),
    }
}

//! The bindings as JavaScript sees them, run by wasm-bindgen-test in Node
//! (`cargo test --target wasm32-unknown-unknown -p wasm`) and in headless
//! Chromium (the same with `WASM_BINDGEN_USE_BROWSER=1`).

use js_sys::{Array, Object, Reflect};
use leaselab::WasmStore;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn field(object: &JsValue, name: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(name)).unwrap_or_else(|_| panic!("no field {name}"))
}

fn number(object: &JsValue, name: &str) -> f64 {
    field(object, name).as_f64().unwrap_or_else(|| panic!("{name} is not a number: {:?}", field(object, name)))
}

fn string(object: &JsValue, name: &str) -> String {
    field(object, name).as_string().unwrap_or_else(|| panic!("{name} is not a string"))
}

fn flag(object: &JsValue, name: &str) -> bool {
    field(object, name).as_bool().unwrap_or_else(|| panic!("{name} is not a boolean"))
}

/// `{ value, version }` built the way a page would build it.
fn expect(value: Option<&str>, version: Option<f64>) -> JsValue {
    let object = Object::new();
    Reflect::set(&object, &"value".into(), &value.map_or(JsValue::NULL, JsValue::from_str)).unwrap();
    if let Some(version) = version {
        Reflect::set(&object, &"version".into(), &version.into()).unwrap();
    }
    object.into()
}

fn ttl(ttl_ms: f64) -> JsValue {
    let object = Object::new();
    Reflect::set(&object, &"ttlMs".into(), &ttl_ms.into()).unwrap();
    object.into()
}

fn error_message(result: Result<JsValue, wasm_bindgen::JsError>) -> String {
    let error: JsValue = result.expect_err("expected an error").into();
    let error: js_sys::Error = error.dyn_into().expect("a JS Error");
    error.message().into()
}

#[wasm_bindgen_test]
fn create_then_cas_on_value_and_version() {
    let mut store = WasmStore::new();
    assert_eq!(store.revision(), 1.0);

    let created = store.compare_and_swap("owner", "p1", expect(None, None), JsValue::UNDEFINED).unwrap();
    assert!(flag(&created, "ok"));
    assert_eq!(number(&created, "version"), 2.0);
    assert_eq!(number(&field(&created, "record"), "keyVersion"), 1.0);

    // A second create fails and reports who is there; nothing changes.
    let again = store.compare_and_swap("owner", "p2", expect(None, None), JsValue::UNDEFINED).unwrap();
    assert!(!flag(&again, "ok"));
    assert_eq!(string(&field(&again, "current"), "value"), "p1");
    assert_eq!(store.revision(), 2.0);

    // Value and version must both match.
    let stale = store.compare_and_swap("owner", "p2", expect(Some("p1"), Some(1.0)), JsValue::UNDEFINED).unwrap();
    assert!(!flag(&stale, "ok"));
    let fresh = store.compare_and_swap("owner", "p2", expect(Some("p1"), Some(2.0)), JsValue::UNDEFINED).unwrap();
    assert!(flag(&fresh, "ok"));
    assert_eq!(number(&fresh, "version"), 3.0);
    assert_eq!(number(&field(&fresh, "record"), "keyVersion"), 2.0);
}

#[wasm_bindgen_test]
fn value_compare_on_missing_key_fails_with_null_current() {
    let mut store = WasmStore::new();
    let result = store.compare_and_swap("nobody", "p1", expect(Some("p0"), None), JsValue::UNDEFINED).unwrap();
    assert!(!flag(&result, "ok"));
    assert!(field(&result, "current").is_null(), "current must be null, not undefined");
    assert!(store.get("nobody").unwrap().is_null());
}

#[wasm_bindgen_test]
fn ttl_expiry_is_one_write_and_versions_never_repeat() {
    let mut store = WasmStore::new();
    let first = store.compare_and_swap("lock", "p1", expect(None, None), ttl(1000.0)).unwrap();
    assert_eq!(number(&field(&first, "record"), "ttlLeftMs"), 1000.0);
    store.advance_by(999.0).unwrap();
    assert_eq!(number(&store.get("lock").unwrap(), "ttlLeftMs"), 1.0);

    let events = Array::from(&store.advance_by(1.0).unwrap());
    assert_eq!(events.length(), 1);
    let expiry = events.get(0);
    assert_eq!(string(&expiry, "type"), "expire");
    assert_eq!(number(&expiry, "version"), 3.0);
    assert_eq!(store.revision(), 3.0, "expiry is exactly one revision bump");
    assert!(store.get("lock").unwrap().is_null());

    let second = store.compare_and_swap("lock", "p2", expect(None, None), ttl(1000.0)).unwrap();
    assert_eq!(number(&second, "version"), 4.0, "a new holder gets a version never seen before");
    assert_eq!(number(&field(&second, "record"), "keyVersion"), 1.0, "the per-key counter restarts");
}

#[wasm_bindgen_test]
fn versioned_delete_never_removes_someone_elses_key() {
    let mut store = WasmStore::new();
    store.compare_and_swap("lock", "p1", expect(None, None), ttl(500.0)).unwrap();
    store.advance_by(500.0).unwrap();
    store.compare_and_swap("lock", "p2", expect(None, None), ttl(500.0)).unwrap();
    let stale_unlock = store.delete("lock", Some(2.0)).unwrap();
    assert!(!flag(&stale_unlock, "ok"));
    assert_eq!(string(&store.get("lock").unwrap(), "value"), "p2");
    let own_unlock = store.delete("lock", Some(4.0)).unwrap();
    assert!(flag(&own_unlock, "ok"));
    assert_eq!(string(&field(&own_unlock, "previous"), "value"), "p2");
}

#[wasm_bindgen_test]
fn watch_fires_on_expiry_and_answers_past_changes_at_once() {
    let mut store = WasmStore::new();
    store.compare_and_swap("lock", "p1", expect(None, None), ttl(100.0)).unwrap();
    let start = store.watch("lock", 2.0).unwrap();
    assert!(!flag(&start, "ready"));
    let watch_id = number(&start, "watch");
    assert_eq!(Array::from(&store.take_fired().unwrap()).length(), 0);

    store.advance_by(100.0).unwrap();
    let fired = Array::from(&store.take_fired().unwrap());
    assert_eq!(fired.length(), 1);
    assert_eq!(string(&fired.get(0), "type"), "expire");
    assert_eq!(number(&fired.get(0), "watch"), watch_id);

    // Watching from before a change that already happened answers at once.
    let late = store.watch("lock", 1.0).unwrap();
    assert!(flag(&late, "ready"));
    assert_eq!(string(&field(&late, "event"), "type"), "put");
}

#[wasm_bindgen_test]
fn snapshot_lists_keys_with_metadata() {
    let mut store = WasmStore::new();
    store.put("a", "1", JsValue::UNDEFINED).unwrap();
    store.put("b", "2", ttl(50.0)).unwrap();
    store.advance_by(20.0).unwrap();
    let snapshot = store.snapshot().unwrap();
    assert_eq!(number(&snapshot, "revision"), 3.0);
    assert_eq!(number(&snapshot, "nowMs"), 20.0);
    let keys = Array::from(&field(&snapshot, "keys"));
    assert_eq!(keys.length(), 2);
    assert!(field(&keys.get(0), "ttlLeftMs").is_null());
    assert_eq!(number(&keys.get(1), "ttlLeftMs"), 30.0);
    assert_eq!(Array::from(&field(&snapshot, "leases")).length(), 1);
}

#[wasm_bindgen_test]
fn bad_input_gets_a_message_a_person_can_act_on() {
    let mut store = WasmStore::new();
    let message = error_message(store.compare_and_swap("", "v", expect(None, None), JsValue::UNDEFINED));
    assert!(message.contains("key is empty"), "{message}");
    let message = error_message(store.compare_and_swap("k", "v", expect(None, None), ttl(0.0)));
    assert!(message.contains("TTL of 0 ms is out of range"), "{message}");
    let message = error_message(store.compare_and_swap("k", "v", JsValue::from_str("oops"), JsValue::UNDEFINED));
    assert!(message.contains("pass an object like"), "{message}");
    let message = error_message(store.advance_by(-5.0));
    assert!(message.contains("whole number"), "{message}");
    assert_eq!(store.revision(), 1.0, "refused calls change nothing");
}

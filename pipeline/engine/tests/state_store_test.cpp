#include "engine/state_store.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>
#include <sqlite3.h>

using namespace af::engine;

TEST_CASE("state store persists actions and the stat cache", "[state]") {
    af::engine::test::TestProject t;
    t.write("in.txt", "hello");
    af::Hash128 h;
    {
        StateStore s(t.path(".assetforge"));
        h = s.file_hash("in.txt", t.path("in.txt"));
        CHECK(h == af::hash_string("hello"));
        ActionRecord r;
        r.job = "j";
        r.input = "in.txt";
        r.key = af::hash_string("k");
        r.outputs = {{"out/a b.txt", af::hash_string("o"), FileStat{12, -5, 77}}};
        r.status = ActionRecord::Status::Built;
        s.put_action(r);
    }
    StateStore s(t.path(".assetforge"));
    auto r = s.action("j", "in.txt");
    REQUIRE(r);
    CHECK(r->key == af::hash_string("k"));
    REQUIRE(r->outputs.size() == 1);
    CHECK(r->outputs[0].path == "out/a b.txt");
    CHECK(r->outputs[0].hash == af::hash_string("o"));
    CHECK(r->outputs[0].st == FileStat{12, -5, 77});
    // The stat cache answers without reading: prove it by asking for a stat
    // that matches the cache while the file says something else.
    auto st = stat_file(t.path("in.txt"));
    REQUIRE(st);
    t.write("in.txt", "HELLO"); // same size; maybe same mtime tick
    CHECK(s.file_hash("in.txt", t.path("in.txt"), *st) == h);
    auto st2 = *st;
    st2.mtime_ns += 1;
    CHECK(s.file_hash("in.txt", t.path("in.txt"), st2) == af::hash_string("HELLO"));
    s.erase_action("j", "in.txt");
    CHECK_FALSE(s.action("j", "in.txt"));
}

TEST_CASE("a damaged state database is moved aside and replaced", "[state][promise]") {
    af::engine::test::TestProject t;
    for (int kind = 0; kind < 2; ++kind) {
        {
            StateStore s(t.path(".assetforge"), {"me", "p"});
            ActionRecord r;
            r.job = "j";
            r.input = "in.txt";
            r.status = ActionRecord::Status::Built;
            s.put_action(r);
        }
        auto db = t.path(".assetforge/state.db");
        std::string bytes = t.read(".assetforge/state.db");
        if (kind == 0)
            t.write(".assetforge/state.db", std::string(4096, 'x')); // garbage
        else
            std::filesystem::resize_file(db, bytes.size() / 2); // truncated
        std::filesystem::remove(t.path(".assetforge/state.db-wal"));
        StateStore s(t.path(".assetforge"), {"me", "p"});
        CHECK_THAT(s.recovered_note(), Catch::Contains("damaged") && Catch::Contains("state.db.damaged-"));
        CHECK_FALSE(s.action("j", "in.txt"));
        bool aside = false;
        for (const auto& e : std::filesystem::directory_iterator(t.path(".assetforge")))
            aside = aside || e.path().filename().string().rfind("state.db.damaged-", 0) == 0;
        CHECK(aside);
        for (const auto& e : std::filesystem::directory_iterator(t.path(".assetforge")))
            if (e.path().filename().string().rfind("state.db.damaged-", 0) == 0) std::filesystem::remove(e.path());
    }
}

TEST_CASE("records belong to configurations", "[state][promise]") {
    af::engine::test::TestProject t;
    {
        StateStore a(t.path(".assetforge"), {"A", "p (src=modA)"});
        ActionRecord r;
        r.job = "j";
        r.input = "modA/x.png";
        r.outputs = {{"out/x.png", af::hash_string("x"), {}}};
        r.status = ActionRecord::Status::Built;
        a.put_action(r);
    }
    StateStore b(t.path(".assetforge"), {"B", "p (src=modB)"});
    CHECK(b.actions_of("j").empty());
    CHECK_FALSE(b.action("j", "modA/x.png"));
    auto all = b.every_action();
    REQUIRE(all.size() == 1);
    CHECK(all[0].owner == "A");
    CHECK(b.configurations().at("A") == "p (src=modA)");
    CHECK(b.action("j", "modA/x.png", "A"));
    // Read-only (status) sees the same and never writes.
    StateStore ro(t.path(".assetforge"), {"A", "p (src=modA)"}, StateStore::Mode::ReadOnly);
    CHECK(ro.action("j", "modA/x.png"));
    StateStore none(t.path("elsewhere"), {"A", ""}, StateStore::Mode::ReadOnly);
    CHECK_FALSE(std::filesystem::exists(t.path("elsewhere")));
}

TEST_CASE("a state from before configurations is adopted by the first that opens it", "[state]") {
    af::engine::test::TestProject t;
    std::filesystem::create_directories(t.path(".assetforge"));
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(t.path(".assetforge/state.db").c_str(), &db) == SQLITE_OK);
    const char* v3 =
        "CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, inode INTEGER, hash BLOB) "
        "WITHOUT ROWID; CREATE TABLE actions(job TEXT, input TEXT, key BLOB, input_hash BLOB, params_hash "
        "BLOB, tools TEXT, outputs BLOB, status TEXT, duration_ms REAL, error TEXT, PRIMARY KEY(job, "
        "input)) WITHOUT ROWID; INSERT INTO actions VALUES('j', 'in.png', NULL, NULL, NULL, '', NULL, "
        "'built', 1.0, ''); PRAGMA user_version=3;";
    REQUIRE(sqlite3_exec(db, v3, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    {
        StateStore s(t.path(".assetforge"), {"me", "pipeline.yaml"});
        auto r = s.action("j", "in.png");
        REQUIRE(r);
        CHECK(r->owner == "me");
        CHECK(r->status == ActionRecord::Status::Built);
    }
    StateStore again(t.path(".assetforge"), {"me", "pipeline.yaml"});
    CHECK(again.action("j", "in.png"));
    StateStore other(t.path(".assetforge"), {"other", "pipeline.yaml"});
    CHECK_FALSE(other.action("j", "in.png"));
}

TEST_CASE("an action's warnings are kept with its record", "[state]") {
    af::engine::test::TestProject t;
    {
        StateStore s(t.path(".assetforge"));
        ActionRecord r;
        r.job = "j";
        r.input = "glass.png";
        r.status = ActionRecord::Status::Built;
        r.warnings = {"alpha dropped (BC5_UNORM keeps none)", "blue dropped, \"quoted\"\nsecond line"};
        s.put_action(r);
    }
    StateStore s(t.path(".assetforge"));
    auto r = s.action("j", "glass.png");
    REQUIRE(r);
    CHECK(r->warnings ==
          std::vector<std::string>{"alpha dropped (BC5_UNORM keeps none)", "blue dropped, \"quoted\"\nsecond line"});
    CHECK(r->warnings_known);
}

TEST_CASE("a state from before warnings were kept keeps its records", "[state]") {
    af::engine::test::TestProject t;
    std::filesystem::create_directories(t.path(".assetforge"));
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(t.path(".assetforge/state.db").c_str(), &db) == SQLITE_OK);
    const char* v4 =
        "CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, inode INTEGER, hash BLOB) "
        "WITHOUT ROWID; CREATE TABLE configurations(id TEXT PRIMARY KEY, description TEXT) WITHOUT ROWID; "
        "CREATE TABLE actions(owner TEXT, job TEXT, input TEXT, key BLOB, input_hash BLOB, params_hash BLOB, "
        "tools TEXT, outputs BLOB, status TEXT, duration_ms REAL, error TEXT, PRIMARY KEY(owner, job, input)) "
        "WITHOUT ROWID; INSERT INTO actions VALUES('me', 'j', 'in.png', NULL, NULL, NULL, '', NULL, 'built', 1.0, "
        "''); PRAGMA user_version=4;";
    REQUIRE(sqlite3_exec(db, v4, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    {
        // `status` reads it as it is, and changes nothing.
        StateStore ro(t.path(".assetforge"), {"me", "pipeline.yaml"}, StateStore::Mode::ReadOnly);
        auto r = ro.action("j", "in.png");
        REQUIRE(r);
        CHECK(r->warnings.empty());
        CHECK_FALSE(r->warnings_known);
    }
    {
        StateStore s(t.path(".assetforge"), {"me", "pipeline.yaml"});
        auto r = s.action("j", "in.png");
        REQUIRE(r);
        CHECK(r->status == ActionRecord::Status::Built);
        CHECK(r->warnings.empty());
        CHECK_FALSE(r->warnings_known); // not "none": the build that made it did not say
        ActionRecord w = *r;
        w.input = "other.png";
        w.warnings = {"alpha dropped"};
        w.warnings_known = true;
        s.put_action(w);
    }
    StateStore again(t.path(".assetforge"), {"me", "pipeline.yaml"});
    REQUIRE(again.action("j", "in.png"));
    CHECK_FALSE(again.action("j", "in.png")->warnings_known);
    auto w = again.action("j", "other.png");
    REQUIRE(w);
    CHECK(w->warnings == std::vector<std::string>{"alpha dropped"});
}

TEST_CASE("a state from before change times keeps its records: their stats read with ctime 0", "[state]") {
    af::engine::test::TestProject t;
    std::filesystem::create_directories(t.path(".assetforge"));
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(t.path(".assetforge/state.db").c_str(), &db) == SQLITE_OK);
    // One output record in the layout of schema 5: hash, size 12, mtime -5, inode 77, u32 length, path.
    std::string blob(16, '\x11');
    for (uint64_t v : {uint64_t(12), uint64_t(-5), uint64_t(77)})
        for (int i = 0; i < 8; ++i) blob += char(uint8_t(v >> (8 * i)));
    for (int i = 0; i < 4; ++i) blob += char(uint8_t(5 >> (8 * i)));
    blob += "o.bin";
    const char* v5 =
        "CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, inode INTEGER, hash BLOB) "
        "WITHOUT ROWID; CREATE TABLE configurations(id TEXT PRIMARY KEY, description TEXT) WITHOUT ROWID; "
        "CREATE TABLE actions(owner TEXT, job TEXT, input TEXT, key BLOB, input_hash BLOB, params_hash BLOB, "
        "tools TEXT, outputs BLOB, status TEXT, duration_ms REAL, error TEXT, warnings TEXT, PRIMARY KEY(owner, job, "
        "input)) WITHOUT ROWID; INSERT INTO files VALUES('src/a', 3, 4, 5, x'00112233445566778899aabbccddeeff'); "
        "PRAGMA user_version=5;";
    REQUIRE(sqlite3_exec(db, v5, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_stmt* put = nullptr;
    REQUIRE(sqlite3_prepare_v2(db,
                               "INSERT INTO actions VALUES('me', 'j', 'in.png', NULL, NULL, NULL, '', ?, "
                               "'built', 1.0, '', '[]')",
                               -1, &put, nullptr) == SQLITE_OK);
    sqlite3_bind_blob(put, 1, blob.data(), int(blob.size()), SQLITE_TRANSIENT);
    REQUIRE(sqlite3_step(put) == SQLITE_DONE);
    sqlite3_finalize(put);
    sqlite3_close(db);
    auto check = [](const StateStore& s) {
        auto r = s.action("j", "in.png");
        REQUIRE(r);
        REQUIRE(r->outputs.size() == 1);
        CHECK(r->outputs[0].path == "o.bin");
        CHECK(r->outputs[0].st == FileStat{12, -5, 77, 0});
        CHECK(r->outputs[0].hash == af::Hash128{0x1111111111111111ull, 0x1111111111111111ull});
    };
    check(StateStore(t.path(".assetforge"), {"me", "pipeline.yaml"}, StateStore::Mode::ReadOnly));
    {
        StateStore s(t.path(".assetforge"), {"me", "pipeline.yaml"});
        check(s);
        // The cached stat no longer matches a real one (ctime 0): the file is hashed again, once.
        int hashed = 0;
        s.file_hash("src/a", FileStat{3, 4, 5, 6}, [&] {
            ++hashed;
            return af::hash_string("a");
        });
        CHECK(hashed == 1);
    }
    StateStore again(t.path(".assetforge"), {"me", "pipeline.yaml"});
    check(again);
    int hashed = 0;
    again.file_hash("src/a", FileStat{3, 4, 5, 6}, [&] {
        ++hashed;
        return af::hash_string("a");
    });
    CHECK(hashed == 0);
}

TEST_CASE("a kept store knows when another process wrote the database or replaced it", "[state]") {
    af::engine::test::TestProject t;
    StateStore a(t.path(".assetforge"));
    ActionRecord r;
    r.job = "j";
    r.input = "in.txt";
    r.key = af::hash_string("k");
    a.put_action(r);
    a.flush();
    CHECK_FALSE(a.stale()); // its own writes
    {
        StateStore b(t.path(".assetforge"));
        CHECK_FALSE(a.stale()); // another only reading
        r.input = "other.txt";
        b.put_action(r);
        b.flush();
    }
    CHECK(a.stale());

    StateStore c(t.path(".assetforge"));
    CHECK_FALSE(c.stale());
    std::filesystem::rename(t.path(".assetforge/state.db"), t.path(".assetforge/aside.db"));
    CHECK(c.stale()); // moved aside: the next build opens a new one
    c.close();
    CHECK(c.stale());
}

TEST_CASE("a large stat cache is read beside the records and all of it is there", "[state]") {
    af::engine::test::TestProject t;
    constexpr int kFiles = 6000; // above the size read on a connection of its own
    {
        StateStore s(t.path(".assetforge"));
        for (int i = 0; i < kFiles; ++i)
            s.remember_file("src/f" + std::to_string(i), FileStat{uint64_t(i), i * 7, uint64_t(i + 1)},
                            af::hash_string(std::to_string(i)));
        ActionRecord r;
        r.job = "j";
        r.input = "src/f1";
        r.key = af::hash_string("k");
        s.put_action(r);
    }
    StateStore s(t.path(".assetforge"));
    REQUIRE(s.action("j", "src/f1"));
    int read = 0;
    for (int i = 0; i < kFiles; ++i) {
        auto h = s.file_hash("src/f" + std::to_string(i), FileStat{uint64_t(i), i * 7, uint64_t(i + 1)}, [&] {
            ++read;
            return af::Hash128{};
        });
        CHECK(h == af::hash_string(std::to_string(i)));
    }
    CHECK(read == 0);
}

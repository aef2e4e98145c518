#include "cli/backends.h"

#include <cstdlib>

#include "meta/pg_meta_store.h"
#include "sources/aws_config.h"

namespace sealvol::cli {

void AddBackendOptions(CLI::App* cmd, BackendFlags* f) {
  cmd->add_option("--blobs", f->blobs,
                  "Keep blobs in an S3-compatible bucket: s3://BUCKET/PREFIX "
                  "(credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY "
                  "or AWS_PROFILE). Default: the store directory");
  cmd->add_option("--meta", f->meta,
                  "Keep metadata in PostgreSQL: postgres://USER[:PASS]@HOST"
                  "[:PORT]/DB (or PGPASSWORD). Default: the store's SQLite");
  cmd->add_option("--endpoint", f->endpoint,
                  "S3 endpoint URL for --blobs (MinIO, Ceph, R2, ...); "
                  "default $AWS_ENDPOINT_URL_S3, else AWS");
  cmd->add_option("--region", f->region,
                  "S3 region for --blobs (default $AWS_REGION, else "
                  "us-east-1)");
  cmd->add_option("--refresh-after", f->refresh_after,
                  "Seconds after which a reused blob in the bucket gets a "
                  "fresh Last-Modified (a server-side copy); gc's --grace "
                  "must exceed this plus the longest publish")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--addressing", f->addressing,
                  "S3 addressing for --blobs: path or virtual")
      ->check(CLI::IsMember({"path", "virtual"}))
      ->capture_default_str();
}

Result<std::unique_ptr<Backends>> Backends::Open(const BackendFlags& f,
                                                 EmbeddedStore& embedded) {
  std::unique_ptr<S3BlobStore> s3;
  if (!f.blobs.empty()) {
    S3Options o;
    CredentialsFromEnvironment(&o);
    const char* home = std::getenv("HOME");
    SV_RETURN_IF_ERROR(LoadAwsCredentials(&o, home ? home : "/"));
    if (o.creds.access_key.empty()) {
      return PermissionDenied(
          "--blobs " + f.blobs +
          ": no S3 credentials (set AWS_ACCESS_KEY_ID and "
          "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials)");
    }
    const char* env_ep = std::getenv("AWS_ENDPOINT_URL_S3");
    if (!f.endpoint.empty()) {
      o.endpoint = f.endpoint;
    } else if (env_ep != nullptr && *env_ep) {
      o.endpoint = env_ep;
    }
    if (!f.region.empty()) o.region = f.region;
    o.path_style = f.addressing != "virtual";
    o.retry_for = ClientRetryFor();
    SV_ASSIGN_OR_RETURN(s3, S3BlobStore::Open(f.blobs, o, f.refresh_after));
  }
  std::unique_ptr<MetaStore> pg;
  std::string meta_desc = "metadata " + embedded.root() + "/meta.db";
  if (!f.meta.empty()) {
    if (f.meta.rfind("postgres://", 0) != 0 &&
        f.meta.rfind("postgresql://", 0) != 0) {
      // Not echoed: the value may hold a password.
      return InvalidArgument(
          "--meta wants postgres://USER[:PASSWORD]@HOST[:PORT]/DB");
    }
    SV_ASSIGN_OR_RETURN(auto store, PgMetaStore::Open(f.meta, f.migrate));
    meta_desc = "metadata " + store->display();
    pg = std::move(store);
  }
  BlobStore* blobs = s3 ? static_cast<BlobStore*>(s3.get()) : &embedded.blobs();
  MetaStore* meta = pg ? pg.get() : &embedded.registry().meta();
  std::unique_ptr<Backends> b(new Backends(blobs, meta));
  b->description_ = "blobs " + (s3 ? s3->uri() : embedded.root() + "/blobs") +
                    ", " + meta_desc;
  b->s3_ = std::move(s3);
  b->pg_ = std::move(pg);
  return b;
}

}  // namespace sealvol::cli

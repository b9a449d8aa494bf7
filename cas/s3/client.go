package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: the object (or the bucket) does not exist.
	ErrNotFound = errors.New("s3: not found")
	// ErrURL: a remote address is not s3://BUCKET[/PREFIX].
	ErrURL = errors.New("s3: bad remote address")
)

// Config says where a remote is and how to reach it.
type Config struct {
	// URL is s3://BUCKET/PREFIX.
	URL string `json:"url"`
	// Endpoint is the server's URL (http://host:port); empty means AWS
	// S3 in Region. Given an endpoint, buckets are addressed path-style
	// (http://host/BUCKET/KEY), as MinIO-like servers need.
	Endpoint string `json:"endpoint,omitempty"`
	Region   string `json:"region,omitempty"`
	// AccessKey and SecretKey: empty means anonymous.
	AccessKey string `json:"access_key,omitempty"`
	SecretKey string `json:"secret_key,omitempty"`
	// Token is a session token that goes with temporary credentials
	// (AWS_SESSION_TOKEN); never stored.
	Token string `json:"-"`
}

// ParseURL splits s3://BUCKET/PREFIX into the bucket and the prefix
// (empty, or ending in "/").
func ParseURL(u string) (bucket, prefix string, err error) {
	rest, ok := strings.CutPrefix(u, "s3://")
	if !ok {
		return "", "", fmt.Errorf("%w: %q does not start with s3://", ErrURL, u)
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	if len(bucket) < 3 || len(bucket) > 63 || strings.Trim(bucket, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" {
		return "", "", fmt.Errorf("%w: %q: bucket names are 3 to 63 lower-case letters, digits, dots and hyphens", ErrURL, u)
	}
	prefix = strings.Trim(prefix, "/")
	if strings.Contains(prefix, "//") {
		return "", "", fmt.Errorf("%w: %q: empty path segment", ErrURL, u)
	}
	if prefix != "" {
		prefix += "/"
	}
	return bucket, prefix, nil
}

// Client is a bucket and prefix on an S3-compatible server. It counts
// its requests and the bytes it sends and receives. Safe for concurrent
// use.
type Client struct {
	c      *minio.Client
	Bucket string
	Prefix string

	Requests atomic.Int64
	Sent     atomic.Int64
	Received atomic.Int64
}

// New returns a Client for cfg. It makes no request.
func New(cfg Config) (*Client, error) {
	bucket, prefix, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	host, secure := "s3.amazonaws.com", true
	lookup := minio.BucketLookupAuto
	if cfg.Region != "" && cfg.Endpoint == "" {
		host = "s3." + cfg.Region + ".amazonaws.com"
	}
	if cfg.Endpoint != "" {
		u, err := url.Parse(cfg.Endpoint)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("%w: endpoint %q: want http(s)://HOST[:PORT]", ErrURL, cfg.Endpoint)
		}
		host, secure, lookup = u.Host, u.Scheme == "https", minio.BucketLookupPath
	}
	var creds *credentials.Credentials
	if cfg.AccessKey != "" || cfg.SecretKey != "" {
		creds = credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.Token)
	} else {
		creds = credentials.NewStatic("", "", "", credentials.SignatureAnonymous)
	}
	mc, err := minio.New(host, &minio.Options{Creds: creds, Secure: secure, Region: cfg.Region, BucketLookup: lookup})
	if err != nil {
		return nil, fmt.Errorf("s3: %w", err)
	}
	return &Client{c: mc, Bucket: bucket, Prefix: prefix}, nil
}

func (c *Client) wrap(op, key string, err error) error {
	if err == nil {
		return nil
	}
	var ctxErr error
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		ctxErr = err
	}
	code := minio.ToErrorResponse(err).Code
	if code == "NoSuchKey" || code == "NoSuchBucket" || code == "NotFound" {
		return fmt.Errorf("%w: %s s3://%s/%s", ErrNotFound, op, c.Bucket, key)
	}
	if ctxErr != nil {
		return fmt.Errorf("s3: %s s3://%s/%s: %w", op, c.Bucket, key, ctxErr)
	}
	return fmt.Errorf("s3: %s s3://%s/%s: %w", op, c.Bucket, key, err)
}

// CheckBucket returns nil if the bucket exists; with create it makes
// one that does not.
func (c *Client) CheckBucket(ctx context.Context, create bool, region string) error {
	c.Requests.Add(1)
	ok, err := c.c.BucketExists(ctx, c.Bucket)
	if err != nil {
		return c.wrap("check bucket", "", err)
	}
	if ok {
		return nil
	}
	if !create {
		return fmt.Errorf("%w: bucket %s does not exist (make it, or pass --create)", ErrNotFound, c.Bucket)
	}
	c.Requests.Add(1)
	if err := c.c.MakeBucket(ctx, c.Bucket, minio.MakeBucketOptions{Region: region}); err != nil {
		if code := minio.ToErrorResponse(err).Code; code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists" {
			return nil
		}
		return c.wrap("make bucket", "", err)
	}
	return nil
}

// Put writes the object key (a full key, prefix included) in one
// request: it appears whole or not at all.
func (c *Client) Put(ctx context.Context, key string, data []byte) error {
	c.Requests.Add(1)
	_, err := c.c.PutObject(ctx, c.Bucket, key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: "application/octet-stream", DisableMultipart: true})
	if err == nil {
		c.Sent.Add(int64(len(data)))
	}
	return c.wrap("put", key, err)
}

// Get reads the whole object key, refusing one over max bytes.
func (c *Client) Get(ctx context.Context, key string, max int64) ([]byte, error) {
	return c.get(ctx, key, minio.GetObjectOptions{}, max)
}

// GetRange reads length bytes of object key from offset; fewer bytes
// are an error naming the object.
func (c *Client) GetRange(ctx context.Context, key string, offset, length int64) ([]byte, error) {
	var o minio.GetObjectOptions
	if err := o.SetRange(offset, offset+length-1); err != nil {
		return nil, fmt.Errorf("s3: range of %s: %w", key, err)
	}
	data, err := c.get(ctx, key, o, length)
	if err == nil && int64(len(data)) != length {
		return nil, fmt.Errorf("%w: s3://%s/%s: %d bytes at %d: got %d", ErrCorrupt, c.Bucket, key, length, offset, len(data))
	}
	return data, err
}

func (c *Client) get(ctx context.Context, key string, o minio.GetObjectOptions, max int64) ([]byte, error) {
	c.Requests.Add(1)
	obj, err := c.c.GetObject(ctx, c.Bucket, key, o)
	if err != nil {
		return nil, c.wrap("get", key, err)
	}
	defer obj.Close()
	data, err := io.ReadAll(io.LimitReader(obj, max+1))
	c.Received.Add(int64(len(data)))
	if err != nil {
		return nil, c.wrap("get", key, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: s3://%s/%s: over %d bytes", ErrCorrupt, c.Bucket, key, max)
	}
	return data, nil
}

// Object is one listed object; Key is relative to the prefix.
type Object struct {
	Key      string
	Size     int64
	Modified time.Time
}

// List returns every object under the prefix + sub, keys relative to
// the prefix.
func (c *Client) List(ctx context.Context, sub string) ([]Object, error) {
	c.Requests.Add(1)
	var out []Object
	for o := range c.c.ListObjects(ctx, c.Bucket, minio.ListObjectsOptions{Prefix: c.Prefix + sub, Recursive: true}) {
		if o.Err != nil {
			return nil, c.wrap("list", c.Prefix+sub, o.Err)
		}
		out = append(out, Object{Key: strings.TrimPrefix(o.Key, c.Prefix), Size: o.Size, Modified: o.LastModified})
	}
	return out, nil
}

// Remove deletes object key; an absent one is not an error.
func (c *Client) Remove(ctx context.Context, key string) error {
	c.Requests.Add(1)
	err := c.c.RemoveObject(ctx, c.Bucket, key, minio.RemoveObjectOptions{})
	if err != nil && errors.Is(c.wrap("remove", key, err), ErrNotFound) {
		return nil
	}
	return c.wrap("remove", key, err)
}

package stream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// Register a webhook for a task, list the task's configs, and remove it.
// A config prints without its token.
func ExampleClient_SetPushConfig() {
	// An agent over HTTP+JSON that holds the configs of task t-1, as
	// @a2a-js/sdk 1.3.0 answers: 201 with the config (the token echoed),
	// 204 for a delete, 404 TASK_NOT_FOUND for a config it does not have.
	var stored string
	agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/a2a+json")
		switch {
		case r.Method == http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			stored = `{"id":"c-1","taskId":"t-1",` + strings.TrimPrefix(string(body), "{")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, stored)
		case r.Method == http.MethodDelete:
			stored = ""
			w.WriteHeader(http.StatusNoContent)
		case strings.HasSuffix(r.URL.Path, "/pushNotificationConfigs"):
			io.WriteString(w, `{"configs":[`+stored+`]}`)
		case stored != "":
			io.WriteString(w, stored)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"status":"NOT_FOUND","message":"no such config",`+
				`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`)
		}
	})
	c, err := stream.NewRESTClient("http://agent.test", stream.WithHTTPClient(a2atest.NewClient(agent)), stream.WithVersion(a2a.V10))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, taskID, token := context.Background(), "t-1", "a fresh random token"

	cfg, err := c.SetPushConfig(ctx, taskID, a2a.PushConfig{URL: "https://app.example/a2a/hook", Token: token})
	fmt.Println(cfg, err)
	cfgs, err := c.ListPushConfigs(ctx, taskID)
	fmt.Println(len(cfgs), err)
	err = c.DeletePushConfig(ctx, taskID, cfg.ID)
	fmt.Println(err)
	_, err = c.GetPushConfig(ctx, taskID, cfg.ID)
	var rpcErr *a2a.RPCError
	fmt.Println(errors.As(err, &rpcErr) && rpcErr.Code == a2a.CodeTaskNotFound, errors.Is(err, errors.ErrUnsupported))
	// Output:
	// a2a.PushConfig{ID:"c-1" TaskID:"t-1" URL:"https://app.example/a2a/hook" Token:xxxxx} <nil>
	// 1 <nil>
	// <nil>
	// true false
}

#lang racket/base
;; racket_render.rkt FILE - what Racket itself makes of a Racket JSON
;; profile: its profile/render-json's json->profile reads FILE, then its
;; profile/render-text's render prints it with both thresholds at 0
;; (hide nothing), in the order json->profile kept.  tests/formats_racket.t
;; compares this with sproftop's own `-f text --hide-self 0 --hide-subs 0`.
(require json profile/render-json profile/render-text)

(define file (vector-ref (current-command-line-arguments) 0))
(render (json->profile (call-with-input-file file read-json))
        #:hide-self 0 #:hide-subs 0)

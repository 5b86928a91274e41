# shotty shell integration for zsh: OSC 133 marks around the prompt and each command.
# ZDOTDIR points here; the user's own start-up files (from SHOTTY_ZDOTDIR) are sourced first.
ZDOTDIR=$SHOTTY_ZDOTDIR
[[ -z $SHOTTY_ZSH_NORCS && -r $ZDOTDIR/.zshrc ]] && . $ZDOTDIR/.zshrc
autoload -Uz add-zsh-hook
# D first, while $? is still the command's status.
__shotty_precmd() {
    local s=$?
    print -n "\e]133;D;$s\a"
    return $s
}
# A and B around the prompt, again if a theme rewrote PS1.
__shotty_wrap_prompt() {
    [[ $PS1 == *'133;A'* ]] || PS1=$'%{\e]133;A\a%}'"$PS1"$'%{\e]133;B\a%}'
}
__shotty_preexec() {
    print -n "\e]133;C\a"
}
precmd_functions=(__shotty_precmd ${precmd_functions:#__shotty_precmd} __shotty_wrap_prompt)
add-zsh-hook preexec __shotty_preexec
